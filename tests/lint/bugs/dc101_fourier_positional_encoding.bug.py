# devcheck bug corpus: DC101
# From: https://github.com/jmclong/random-fourier-features-pytorch/pull/4
# From: https://github.com/jmclong/random-fourier-features-pytorch/issues/2
# A positional-encoding layer makes torch.arange(m) in forward without a
# device; the coefficients it computes from it are on the CPU and meet the
# input on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, sigma, m):
        super().__init__()
        self.sigma = sigma
        self.m = m

    def forward(self, v):
        j = torch.arange(self.m)  # <- bug
        coeffs = 2 * np.pi * self.sigma ** (j / self.m)
        vp = coeffs * torch.unsqueeze(v, -1)
        vp_cat = torch.cat((torch.cos(vp), torch.sin(vp)), dim=-1)
        return vp_cat.flatten(-2, -1)
