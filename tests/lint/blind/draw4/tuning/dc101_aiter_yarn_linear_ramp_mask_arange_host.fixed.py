# devcheck bug corpus: DC101
# From: https://github.com/ROCm/aiter/pull/2489
# The PR's fix gives _yarn_linear_ramp_mask a device parameter (default "cuda") used
# by its torch.arange, and passes device="cuda" from the call site, so the ramp mask is
# made where pos_freqs is.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn


def _yarn_find_correction_dim(num_rotations, dim, base=10000, max_position_embeddings=2048):
    return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def _yarn_find_correction_range(low_rot, high_rot, dim, base=10000, max_position_embeddings=2048):
    low = math.floor(_yarn_find_correction_dim(low_rot, dim, base, max_position_embeddings))
    high = math.ceil(_yarn_find_correction_dim(high_rot, dim, base, max_position_embeddings))
    return max(low, 0), min(high, dim - 1)


def _yarn_linear_ramp_mask(low, high, dim, dtype, device="cuda"):  # <- fixed
    if low == high:
        high += 0.001
    linear_func = (torch.arange(dim, dtype=dtype, device=device) - low) / (high - low)  # <- fixed
    return torch.clamp(linear_func, 0, 1)


class RotaryEmbedding(nn.Module):
    def __init__(self, head_size, rotary_dim, max_position_embeddings, base):
        super().__init__()
        self.head_size, self.rotary_dim = head_size, rotary_dim
        self.max_position_embeddings, self.base = max_position_embeddings, base
        self.register_buffer("cos_sin_cache", self._compute_cos_sin_cache(), persistent=False)

    def _compute_inv_freq(self, base):
        return 1.0 / (base ** (torch.arange(0, self.rotary_dim, 2, dtype=torch.float, device="cuda") / self.rotary_dim))

    def _compute_cos_sin_cache(self):
        inv_freq = self._compute_inv_freq(self.base)
        t = torch.arange(self.max_position_embeddings, dtype=torch.float, device=inv_freq.device)
        freqs = torch.einsum("i,j->ij", t, inv_freq)
        return torch.cat((freqs.cos(), freqs.sin()), dim=-1)


class DeepseekScalingRotaryEmbedding(RotaryEmbedding):
    def __init__(self, head_size, rotary_dim, max_position_embeddings, base, scaling_factor,
                 extrapolation_factor=1.0, beta_fast=32, beta_slow=1):
        self.scaling_factor = scaling_factor
        self.extrapolation_factor = extrapolation_factor
        self.beta_fast, self.beta_slow = beta_fast, beta_slow
        super().__init__(head_size, rotary_dim, max_position_embeddings, base)

    def _compute_inv_freq(self, scaling_factor):
        pos_freqs = self.base ** (torch.arange(0, self.rotary_dim, 2, dtype=torch.float, device="cuda") / self.rotary_dim)
        inv_freq_extrapolation = 1.0 / pos_freqs
        inv_freq_interpolation = 1.0 / (scaling_factor * pos_freqs)
        low, high = _yarn_find_correction_range(self.beta_fast, self.beta_slow, self.rotary_dim, self.base, self.max_position_embeddings)
        inv_freq_mask = (1 - _yarn_linear_ramp_mask(low, high, self.rotary_dim // 2, dtype=torch.float, device="cuda")) * self.extrapolation_factor  # <- fixed
        return inv_freq_interpolation * (1 - inv_freq_mask) + inv_freq_extrapolation * inv_freq_mask

    def _compute_cos_sin_cache(self):
        inv_freq = self._compute_inv_freq(self.scaling_factor)
        t = torch.arange(self.max_position_embeddings * self.scaling_factor, device="cuda", dtype=torch.float32)
        freqs = torch.einsum("i,j->ij", t, inv_freq)
        return torch.cat((freqs.cos(), freqs.sin()), dim=-1)
