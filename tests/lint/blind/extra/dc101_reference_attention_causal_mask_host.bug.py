# devcheck bug corpus: DC101
# From: https://github.com/InfiniTensor/llaisys/pull/11
# The tests' reference self-attention (a plain function given query, key and
# value) builds its causal mask with torch.ones(L, S, dtype=torch.bool) and
# no device. Run on the CPU it passed; run against the CUDA operator, with
# query on the GPU, masked_fill failed with "expected self and mask to be on
# the same device, but got mask on cpu and self on cuda:0". The fix makes the
# mask with device=query.device.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch


def torch_self_attention(query, key, value, scale=None):
    L, S = query.size(-2), key.size(-2)
    scale = scale if scale is not None else 1 / math.sqrt(query.size(-1))
    attn_weight = query @ key.transpose(-2, -1) * scale
    temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=S - L)  # <- bug
    attn_weight = attn_weight.masked_fill(temp_mask.logical_not(), float("-inf"))
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value


def test_self_attention(device_name="cuda"):
    q = torch.rand(4, 5, 8, device=device_name)
    k = torch.rand(4, 7, 8, device=device_name)
    v = torch.rand(4, 7, 8, device=device_name)
    print(torch_self_attention(q, k, v).shape)
