# devcheck bug corpus: DC101
# From: https://github.com/modelscope/modelscope/issues/220
# A Gaussian diffusion helper (a plain class) built its betas and alphas with
# torch.linspace and cumprod in __init__ and indexed them with the timesteps of
# the batch, drawn on the GPU: "indices should be either on cpu or on the same
# device as the indexed tensor (cpu)".
# Written for devcheck's tests after the thread; not the project's code.
import torch


def _i(tensor, t, x):
    shape = (x.size(0),) + (1,) * (x.ndim - 1)
    return tensor[t].view(shape).to(x)


class GaussianDiffusion:
    def __init__(self, num_timesteps=1000, device=None):
        self.num_timesteps = num_timesteps
        betas = torch.linspace(1e-4, 0.02, num_timesteps, dtype=torch.float64)  # <- bug
        self.betas = betas
        self.alphas_cumprod = torch.cumprod(1 - betas, dim=0)

    def q_sample(self, x0, t, noise):
        return _i(self.alphas_cumprod.sqrt(), t, x0) * x0 + _i((1 - self.alphas_cumprod).sqrt(), t, x0) * noise


def train_step(model, diffusion, x0, device):
    x0 = x0.to(device)
    t = torch.randint(0, diffusion.num_timesteps, (x0.size(0),), device=device)
    noise = torch.randn_like(x0)
    xt = diffusion.q_sample(x0, t, noise)
    return (model(xt, t) - noise).pow(2).mean()
