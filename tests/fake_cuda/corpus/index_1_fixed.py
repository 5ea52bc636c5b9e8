# kind: index
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/modelscope/modelscope/issues/220
# source: https://github.com/CompVis/latent-diffusion/pull/282
# fix: move the schedule to the device first, then index it with t ("change order, first move to device, then index")
"""A Gaussian diffusion helper (not an nn.Module) keeps its noise schedule as
CPU tensors; _i() gathers the schedule at the sampled timesteps t."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _i(tensor, t, x):
    r"""Index tensor using t and format the output according to x."""
    shape = (x.size(0),) + (1,) * (x.ndim - 1)
    return tensor.to(x.device)[t].view(shape).to(x)


class GaussianDiffusion:
    def __init__(self, num_timesteps=50):
        self.num_timesteps = num_timesteps
        betas = torch.linspace(1e-4, 0.02, num_timesteps, dtype=torch.float64)
        alphas_cumprod = torch.cumprod(1 - betas, dim=0)
        self.sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = torch.sqrt(1 - alphas_cumprod)

    def q_sample(self, x0, t, noise):
        return _i(self.sqrt_alphas_cumprod, t, x0) * x0 + _i(self.sqrt_one_minus_alphas_cumprod, t, x0) * noise

    def loss(self, x0, t, model):
        noise = torch.randn_like(x0)
        xt = self.q_sample(x0, t, noise)
        return ((model(xt) - noise) ** 2).mean()


diffusion = GaussianDiffusion()
model = nn.Sequential(nn.Flatten(), nn.Linear(16, 16), nn.Unflatten(1, (1, 4, 4))).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.randn(6, 1, 4, 4)
for step in range(3):
    x0 = images.to(device)
    t = torch.randint(0, diffusion.num_timesteps, (x0.size(0),), device=x0.device)
    loss = diffusion.loss(x0, t, model)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
