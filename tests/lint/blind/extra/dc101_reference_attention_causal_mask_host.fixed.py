# devcheck bug corpus: DC101
# From: https://github.com/InfiniTensor/llaisys/pull/11
# Fixed: the causal mask is made on the query's device.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch


def torch_self_attention(query, key, value, scale=None):
    L, S = query.size(-2), key.size(-2)
    scale = scale if scale is not None else 1 / math.sqrt(query.size(-1))
    attn_weight = query @ key.transpose(-2, -1) * scale
    temp_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril(diagonal=S - L)  # <- fixed
    attn_weight = attn_weight.masked_fill(temp_mask.logical_not(), float("-inf"))
    attn_weight = torch.softmax(attn_weight, dim=-1)
    return attn_weight @ value


def test_self_attention(device_name="cuda"):
    q = torch.rand(4, 5, 8, device=device_name)
    k = torch.rand(4, 7, 8, device=device_name)
    v = torch.rand(4, 7, 8, device=device_name)
    print(torch_self_attention(q, k, v).shape)
