# devcheck bug corpus: DC101
# From: https://github.com/unslothai/unsloth/pull/840
# Fixed: the positions are made on inv_freq's device, so growing the cache
# after the model went to the GPU stays on one device.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn


class ExtendedRotary(nn.Module):
    def __init__(self, head_dim=64, base=500000.0, max_positions=131072):
        super().__init__()
        self.head_dim = head_dim
        self.max_positions = max_positions
        self.cache_len = min(4 * 8192, max_positions)
        exponents = torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim
        inv_freq = 1.0 / (base ** exponents)
        self.register_buffer("inv_freq", self.rescale(inv_freq), persistent=False)
        self.build_cache(self.cache_len, dtype=torch.float32)

    @staticmethod
    def rescale(freqs, factor=8.0, old_len=8192):
        wavelen = 2 * math.pi / freqs
        return torch.where(wavelen > old_len, freqs / factor, freqs)

    def build_cache(self, length, dtype):
        self.cache_len = length
        positions = torch.arange(length, device=self.inv_freq.device, dtype=torch.int64).float()  # <- fixed
        angles = torch.outer(positions, self.inv_freq)
        table = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos_cached", table.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", table.sin().to(dtype), persistent=False)

    def grow(self, x, seq_len):
        if seq_len <= self.cache_len:
            return
        self.build_cache(math.ceil(seq_len / 8192) * 8192, dtype=x.dtype)

    def forward(self, x, seq_len):
        self.grow(x, seq_len)
        return self.cos_cached[:seq_len], self.sin_cached[:seq_len]


class TinyAttention(nn.Module):
    def __init__(self, hidden=256, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.rope = ExtendedRotary(head_dim=hidden // heads)

    def forward(self, h):
        b, n, _ = h.shape
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        cos, sin = self.rope(h, n)
        q = q.view(b, n, self.heads, -1) * cos[:, None] + sin[:, None]
        return q.flatten(2) + v


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = TinyAttention().to(device)
batch = torch.randn(1, 40000, 256, device=device)
out = model(batch)
out.mean().backward()
