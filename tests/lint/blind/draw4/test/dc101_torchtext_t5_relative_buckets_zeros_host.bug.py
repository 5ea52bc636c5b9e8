# devcheck bug corpus: DC101
# From: https://github.com/pytorch/text/pull/1944
# From: https://github.com/pytorch/text/commit/4570a563020a950e24446613227ef24e2d9a6327
# The prototype T5 attention computes its relative-position bias from positions made
# on the keys' device, but the bucket accumulator in _relative_position_bucket is a
# torch.zeros without a device: on a GPU, adding the (CUDA) bucket offsets to it
# mixes cuda:0 and cpu.
# Written for devcheck's tests after the thread; not the project's code.
import math
from typing import Optional

import torch
import torch.nn as nn
from torch import Tensor


class T5MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads, is_decoder=False, compute_relative_attention_bias=True,
                 relative_attention_num_buckets=32, relative_attention_max_distance=128, device: Optional[torch.device] = None):
        super().__init__()
        self.num_heads = num_heads
        self.is_decoder = is_decoder
        self.num_buckets = relative_attention_num_buckets
        self.max_distance = relative_attention_max_distance
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim, bias=False, device=device)
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=False, device=device)
        if compute_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(relative_attention_num_buckets, num_heads, device=device)
        else:
            self.relative_attention_bias = None

    def forward(self, x: Tensor) -> Tensor:
        B, L, D = x.shape
        q, k, v = self.qkv(x).view(B, L, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2)
        if self.relative_attention_bias is not None:
            scores = scores + self._compute_bias(L, L, bidirectional=not self.is_decoder, device=k.device)
        out = scores.softmax(-1) @ v
        return self.out_proj(out.transpose(1, 2).reshape(B, L, D))

    def _compute_bias(self, query_length, key_length, bidirectional=True, device=None) -> Tensor:
        if device is None:
            device = self.relative_attention_bias.weight.device
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        buckets = self._relative_position_bucket(relative_position, bidirectional, self.num_buckets, self.max_distance)
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def _relative_position_bucket(self, relative_position: Tensor, bidirectional=True, num_buckets=32, max_distance=128) -> Tensor:
        relative_buckets = torch.zeros(relative_position.shape, dtype=torch.long)  # <- bug
        if bidirectional:
            num_buckets = num_buckets // 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        if_large = max_exact + (
            torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).to(torch.long)
        if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
        relative_buckets += torch.where(is_small, relative_position, if_large)
        return relative_buckets


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    attn = T5MultiheadAttention(512, 8, device=device)
    print(attn(torch.randn(2, 16, 512, device=device)).shape)
