# kind: mask-in-forward
# source: https://github.com/InfiniTensor/llaisys/pull/11
# fix: temp_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril(diagonal=S-L)
# expect: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# message-1.13: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# message-2.x: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# sanitizer: mismatch
"""The reference self-attention an operator test compares a kernel against:
the causal mask is built with torch.ones(...).tril() inside the function."""
import math

import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def torch_self_attention(query, key, value, scale):
    L, S = query.size(-2), key.size(-2)
    attn_bias = torch.zeros(L, S, dtype=query.dtype, device=query.device)
    temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)  # BUG:stray
    attn_bias.masked_fill_(temp_mask.logical_not(), float("-inf"))  # BUG:op
    attn_weight = query @ key.transpose(-2, -1) * scale + attn_bias
    return torch.softmax(attn_weight, dim=-1) @ value


def my_attention(query, key, value, scale):
    # the kernel under test: the same maths in another order
    L, S = query.size(-2), key.size(-2)
    scores = torch.einsum("hld,hsd->hls", query * scale, key)
    future = torch.arange(S, device=query.device)[None, :] > (torch.arange(L, device=query.device)[:, None] + S - L)
    scores = scores.masked_fill(future, float("-inf"))
    return torch.einsum("hls,hsd->hld", scores.softmax(-1), value)


for total_len, seq_len in [(4, 4), (7, 3)]:
    q = torch.randn(2, seq_len, 8, device=device)
    k = torch.randn(2, total_len, 8, device=device)
    v = torch.randn(2, total_len, 8, device=device)
    expected = torch_self_attention(q, k, v, 1 / math.sqrt(8))
    got = my_attention(q, k, v, 1 / math.sqrt(8))
    assert torch.allclose(expected, got, atol=1e-5), (total_len, seq_len)
print("self_attention matches the reference")
