# devcheck bug corpus: DC101
# From: https://github.com/AminRezaei0x443/memory-efficient-attention/pull/6
# Memory-efficient attention in chunks: the key chunk offsets came from
# torch.arange without a device and were compared with the query positions of
# the inputs on the GPU for the causal mask. The fix gave the arange the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def attention_chunk(query, key, value, key_start, mask_causal):
    scores = query @ key.transpose(-1, -2)
    if mask_causal:
        q_pos = torch.arange(query.shape[-2], device=query.device)[:, None]
        k_pos = torch.arange(key.shape[-2], device=query.device) + key_start  # <- fixed
        scores = scores.masked_fill(k_pos[None, :] > q_pos, float("-inf"))
    return torch.softmax(scores, -1) @ value


def efficient_dot_product_attention(query, key, value, chunk=1024):
    outputs = []
    for start in range(0, key.shape[-2], chunk):
        outputs.append(attention_chunk(query, key[..., start:start + chunk, :], value[..., start:start + chunk, :], start, True))
    return sum(outputs)
