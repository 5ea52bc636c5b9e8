# devcheck bug corpus: DC101
# From: https://github.com/modelscope/modelscope/pull/207
# In the text-to-video pipeline the DDIM diffusion object made its beta
# schedule with torch.linspace (no device) and derived its alpha tables from
# it, all on the CPU, while the sampling loop made the timesteps t on the
# latents' GPU; the helper that looks up a table at t indexed the CPU table
# with the GPU timesteps, a device mismatch (the same fix as for another
# diffusion module of the project).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def _i(tensor, t, x):
    shape = (x.size(0),) + (1,) * (x.ndim - 1)
    return tensor[t].view(shape).to(x)  # <- bug


def beta_schedule(num_timesteps=1000, init_beta=0.00085, last_beta=0.0120):
    return torch.linspace(init_beta ** 0.5, last_beta ** 0.5, num_timesteps, dtype=torch.float64) ** 2  # <- bug


class GaussianDiffusion:
    def __init__(self, betas):
        self.betas = betas
        self.num_timesteps = len(betas)
        alphas = 1 - betas
        self.alphas_cumprod = torch.cumprod(alphas, dim=0)
        self.sqrt_recip_alphas_cumprod = torch.sqrt(1.0 / self.alphas_cumprod)
        self.sqrt_recipm1_alphas_cumprod = torch.sqrt(1.0 / self.alphas_cumprod - 1)

    @torch.no_grad()
    def ddim_sample(self, xt, t, model, stride):
        eps = model(xt, t)
        x0 = _i(self.sqrt_recip_alphas_cumprod, t, xt) * xt - _i(self.sqrt_recipm1_alphas_cumprod, t, xt) * eps
        alphas_prev = _i(self.alphas_cumprod, (t - stride).clamp(0), xt)
        return torch.sqrt(alphas_prev) * x0 + torch.sqrt(1 - alphas_prev) * eps

    @torch.no_grad()
    def ddim_sample_loop(self, noise, model, ddim_timesteps=50):
        b = noise.size(0)
        xt = noise
        stride = self.num_timesteps // ddim_timesteps
        steps = (1 + torch.arange(0, self.num_timesteps, stride)).clamp(0, self.num_timesteps - 1).flip(0)
        for step in steps:
            t = torch.full((b,), step, dtype=torch.long, device=xt.device)
            xt = self.ddim_sample(xt, t, model, stride)
        return xt


class TextToVideoSynthesis(nn.Module):
    def __init__(self, unet):
        super().__init__()
        self.device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
        self.sd_model = unet
        self.sd_model.to(self.device)
        self.diffusion = GaussianDiffusion(betas=beta_schedule(1000))

    def forward(self, num_frames=16):
        noise = torch.randn(1, 4, num_frames, 32, 32, device=self.device)
        return self.diffusion.ddim_sample_loop(noise, self.sd_model)
