# devcheck bug corpus: DC111
# From: https://github.com/tatp22/linformer-pytorch/issues/20
# With method="no_params", Linformer made its E and F projections as plain
# tensors and handed them to each attention head, which kept them as plain
# attributes: Linformer(...).cuda() moved the layers' parameters but not
# them, and the heads multiplied the keys (on the GPU) with E (on the CPU).
# The fix moved the projection to the keys' device in forward.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def get_EF(input_size, dim):
    mat = torch.zeros((input_size, dim))
    torch.nn.init.normal_(mat, mean=0.0, std=1 / dim)
    return mat


class LinearAttentionHead(nn.Module):
    def __init__(self, dim, dropout, E_proj, F_proj):
        super().__init__()
        self.E = E_proj  # <- bug
        self.F = F_proj  # <- bug
        self.dim = dim
        self.dropout = nn.Dropout(dropout)

    def forward(self, Q, K, V):
        K = K.transpose(1, 2)
        K = torch.matmul(K, self.E)
        Q = torch.matmul(Q, K) / (self.dim ** 0.5)
        P_bar = self.dropout(Q.softmax(dim=-1))
        V = torch.matmul(V.transpose(1, 2), self.F).transpose(1, 2)
        return torch.matmul(P_bar, V)


class Linformer(nn.Module):
    def __init__(self, input_size, channels, dim_k, nhead, dropout=0.1):
        super().__init__()
        E_proj = get_EF(input_size, dim_k)
        F_proj = get_EF(input_size, dim_k)
        self.to_q = nn.Linear(channels, channels)
        self.to_k = nn.Linear(channels, channels)
        self.to_v = nn.Linear(channels, channels)
        self.heads = nn.ModuleList(
            [LinearAttentionHead(channels, dropout, E_proj, F_proj) for _ in range(nhead)])

    def forward(self, x):
        q, k, v = self.to_q(x), self.to_k(x), self.to_v(x)
        return torch.cat([head(q, k, v) for head in self.heads], dim=-1)
