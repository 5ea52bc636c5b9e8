# kind: mask-in-forward
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/jmclong/random-fourier-features-pytorch/pull/4
# fix: j = torch.arange(m, device=v.device)
"""Positional encoding (NeRF style) in front of a small MLP that fits a 1-D
signal: the frequency exponents come from torch.arange(m) inside forward."""
import math

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def positional_encoding(v, sigma, m):
    j = torch.arange(m, device=v.device)
    coeffs = 2 * math.pi * sigma ** (j / m)
    vp = coeffs * torch.unsqueeze(v, -1)
    vp_cat = torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
    return vp_cat.flatten(-2, -1)


class PositionalEncoding(nn.Module):
    def __init__(self, sigma, m):
        super().__init__()
        self.sigma, self.m = sigma, m

    def forward(self, v):
        return positional_encoding(v, self.sigma, self.m)


model = nn.Sequential(PositionalEncoding(sigma=4.0, m=6), nn.Linear(12, 32), nn.ReLU(),
                      nn.Linear(32, 1)).to(device)
x = torch.linspace(0, 1, 64).unsqueeze(1)
y = torch.sin(6 * x) + 0.3 * torch.cos(17 * x)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(5):
    loss = ((model(x.to(device)) - y.to(device)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("mse", round(loss.item(), 4))
