# devcheck bug corpus: DC101
# From: https://github.com/kyegomez/zeta/pull/195
# The pure-PyTorch Mamba block's selective scan starts its recurrent state
# from torch.zeros((b, d_in, n)) with no device: with the block and its
# input on the GPU, the first step multiplies the discretized A (on the GPU)
# with that host state.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import einsum, rearrange, repeat
from torch import Tensor


class MambaBlock(nn.Module):
    def __init__(self, dim: int, d_state: int = 16, expand: int = 2, d_conv: int = 4, bias: bool = False):
        super().__init__()
        self.d_state = d_state
        self.dim_inner = dim * expand
        self.dt_rank = math.ceil(dim / 16)
        self.in_proj = nn.Linear(dim, self.dim_inner * 2, bias=bias)
        self.conv1d = nn.Conv1d(self.dim_inner, self.dim_inner, kernel_size=d_conv,
                                groups=self.dim_inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(self.dim_inner, self.dt_rank + d_state * 2, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, self.dim_inner, bias=True)
        A = repeat(torch.arange(1, d_state + 1), "n -> d n", d=self.dim_inner)
        self.A_log = nn.Parameter(torch.log(A.float()))
        self.D = nn.Parameter(torch.ones(self.dim_inner))
        self.out_proj = nn.Linear(self.dim_inner, dim, bias=bias)

    def forward(self, x: Tensor) -> Tensor:
        b, l, _ = x.shape
        x, res = rearrange(self.in_proj(x), "b l x -> b x l").split([self.dim_inner, self.dim_inner], dim=1)
        x = F.silu(self.conv1d(x)[:, :, :l])
        y = self.ssm(x) * F.silu(res)
        return self.out_proj(rearrange(y, "b d l -> b l d"))

    def ssm(self, x: Tensor) -> Tensor:
        d_in, n = self.A_log.shape
        A = -torch.exp(self.A_log.float())
        x_dbl = self.x_proj(rearrange(x, "b d l -> b l d"))
        delta, B, C = x_dbl.split([self.dt_rank, n, n], dim=-1)
        delta = F.softplus(self.dt_proj(delta))
        return self.selective_scan(x, delta, A, B, C, self.D.float())

    def selective_scan(self, u, delta, A, B, C, D):
        b, d_in, l = u.shape
        n = A.shape[1]
        deltaA = torch.exp(einsum(delta, A, "b l d_in, d_in n -> b d_in l n"))
        deltaB_u = einsum(delta, B, u, "b l d_in, b l n, b d_in l -> b d_in l n")
        x = torch.zeros((b, d_in, n))  # <- bug
        ys = []
        for i in range(l):
            x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
            ys.append(einsum(x, C[:, i, :], "b d_in n, b n -> b d_in"))
        y = torch.stack(ys, dim=2)
        return y + u * rearrange(D, "d_in -> d_in 1")


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MambaBlock(dim=64, expand=4, d_state=8).to(device)
    x = torch.randn(1, 128, 64).to(device)
    out = model(x)
    print(out.shape)
