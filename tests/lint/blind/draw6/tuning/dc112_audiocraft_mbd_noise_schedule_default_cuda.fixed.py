# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/audiocraft/issues/209
# The fix passes the loader's device to each NoiseSchedule, so the betas are
# made where the diffusion models are.
# Written for devcheck's tests after the thread; not the project's code.
import typing as tp

import torch
import torch.nn as nn


class NoiseSchedule:
    def __init__(self, beta_t0: float = 1e-4, beta_t1: float = 0.02, num_steps: int = 1000,
                 clip: float = 5.0, device="cuda", beta_exp: float = 1.0, sample_processor=None):
        self.num_steps = num_steps
        self.clip = clip
        self.sample_processor = sample_processor
        self.betas = torch.linspace(beta_t0 ** (1 / beta_exp), beta_t1 ** (1 / beta_exp), num_steps,
                                    device=device, dtype=torch.float) ** beta_exp

    def get_alpha_bar(self, step: int) -> torch.Tensor:
        return (1 - self.betas[: step + 1]).prod()

    def generate_subsampled(self, model: nn.Module, initial: torch.Tensor, step_list: tp.List[int], condition=None):
        current = initial
        alpha_bar = self.get_alpha_bar(self.num_steps - 1)
        for idx, step in enumerate(step_list[:-1]):
            with torch.no_grad():
                estimate = model(current, step, condition)
            alpha = 1 - self.betas[step]
            current = ((current - (1 - alpha) / (1 - alpha_bar).sqrt() * estimate) / alpha.sqrt()).clamp(-self.clip, self.clip)
            alpha_bar = self.get_alpha_bar(step_list[idx + 1])
        return current


class BandDenoiser(nn.Module):
    def __init__(self, cond_dim=128):
        super().__init__()
        self.cond = nn.Conv1d(cond_dim, 1, 1)
        self.net = nn.Conv1d(2, 1, 3, padding=1)

    def forward(self, x, step, condition):
        c = nn.functional.interpolate(self.cond(condition), size=x.shape[-1])
        return self.net(torch.cat([x, c], dim=1))


class MultiBandDiffusion:
    def __init__(self, processes, device):
        self.processes = processes
        self.device = device

    @staticmethod
    def get_mbd_24khz(n_bands: int = 4, device: tp.Optional[tp.Union[torch.device, str]] = None):
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        processes = []
        for _ in range(n_bands):
            model = BandDenoiser().to(device)
            schedule = NoiseSchedule(beta_t0=1e-5, beta_t1=2.9e-2, num_steps=1000, device=device)  # <- fixed
            processes.append((model, schedule))
        return MultiBandDiffusion(processes, device)

    def generate(self, emb: torch.Tensor, length: int) -> torch.Tensor:
        out = torch.zeros(emb.size(0), 1, length, device=self.device)
        steps = list(range(1000))[::-50] + [0]
        for model, schedule in self.processes:
            out += schedule.generate_subsampled(model, torch.randn_like(out), steps, condition=emb)
        return out


if __name__ == "__main__":
    mbd = MultiBandDiffusion.get_mbd_24khz(device="cpu")
    emb = torch.randn(1, 128, 75)
    print(mbd.generate(emb, 24000).shape)
