# devcheck bug corpus: DC101
# From: https://github.com/finegrain-ai/refiners/pull/85
# From: https://github.com/finegrain-ai/refiners/commit/72854de669aa7899d83954d7f5b1634122b34675
# Fixed: DDPM and DDIM make their timesteps on the scheduler's device
# (device=self.device), so the timestep the loop hands the denoiser is where
# its weights are.
# Written for devcheck's tests after the thread; not the project's code.
import math
from abc import ABC, abstractmethod

import torch
import torch.nn as nn
from torch import Tensor


class Scheduler(ABC):
    def __init__(self, num_inference_steps: int, num_train_timesteps: int = 1000,
                 initial_rate: float = 8.5e-4, final_rate: float = 1.2e-2, device="cpu"):
        self.device = torch.device(device)
        self.num_inference_steps = num_inference_steps
        self.num_train_timesteps = num_train_timesteps
        betas = torch.linspace(initial_rate ** 0.5, final_rate ** 0.5, num_train_timesteps, device=device) ** 2
        self.scale_factors = 1.0 - betas
        self.cumulative_scale_factors = torch.sqrt(self.scale_factors.cumprod(dim=0))
        self.noise_std = torch.sqrt(1.0 - self.scale_factors.cumprod(dim=0))
        self.timesteps = self._generate_timesteps()

    @abstractmethod
    def _generate_timesteps(self) -> Tensor: ...

    @abstractmethod
    def __call__(self, x: Tensor, noise: Tensor, step: int) -> Tensor: ...


class DDPM(Scheduler):
    def _generate_timesteps(self) -> Tensor:
        ratio = self.num_train_timesteps // self.num_inference_steps
        timesteps = torch.arange(start=0, end=self.num_inference_steps, step=1, device=self.device) * ratio  # <- fixed
        return timesteps.flip(0)

    def __call__(self, x, noise, step):
        t = self.timesteps[step]
        return (x - self.noise_std[t] * noise) / self.cumulative_scale_factors[t]


class DDIM(Scheduler):
    def _generate_timesteps(self) -> Tensor:
        ratio = self.num_train_timesteps // self.num_inference_steps
        timesteps = torch.arange(start=0, end=self.num_inference_steps, step=1, device=self.device) * ratio + 1  # <- fixed
        return timesteps.flip(0)

    def __call__(self, x, noise, step):
        t = self.timesteps[step]
        prev = t - self.num_train_timesteps // self.num_inference_steps
        cur_f = self.cumulative_scale_factors[t]
        prev_f = self.cumulative_scale_factors[prev] if prev > 0 else self.cumulative_scale_factors[0]
        pred_x = (x - torch.sqrt(1 - cur_f ** 2) * noise) / cur_f
        return prev_f * pred_x + torch.sqrt(1 - prev_f ** 2) * noise


def sinusoidal_embedding(x: Tensor, dim: int) -> Tensor:
    half = dim // 2
    exponent = -math.log(10000) * torch.arange(half, dtype=torch.float32, device=x.device) / half
    emb = x.unsqueeze(-1).float() * exponent.exp()
    return torch.cat([emb.cos(), emb.sin()], dim=-1)


class TinyDenoiser(nn.Module):
    def __init__(self, channels: int = 4, dim: int = 64):
        super().__init__()
        self.dim = dim
        self.time_proj = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, channels))
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: Tensor, timestep: Tensor) -> Tensor:
        t = self.time_proj(sinusoidal_embedding(timestep, self.dim))
        return self.conv(x) + t[:, :, None, None]


class LatentDiffusion:
    def __init__(self, unet: TinyDenoiser, scheduler: Scheduler):
        self.unet = unet
        self.scheduler = scheduler

    @torch.no_grad()
    def sample(self, x: Tensor) -> Tensor:
        for step in range(self.scheduler.num_inference_steps):
            timestep = self.scheduler.timesteps[step].unsqueeze(dim=0)
            noise = self.unet(x, timestep)
            x = self.scheduler(x, noise, step)
        return x


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    unet = TinyDenoiser().to(device)
    for scheduler in (DDPM(30, device=device), DDIM(30, device=device)):
        ld = LatentDiffusion(unet, scheduler)
        out = ld.sample(torch.randn(1, 4, 32, 32, device=device))
        print(out.shape)
