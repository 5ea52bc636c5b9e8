# kind: plain-attribute
# source: https://github.com/pytorch/audio/pull/457
# fix: self.register_buffer('phase_advance', torch.linspace(0, math.pi * hop_length, n_freq)[..., None])
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""TimeStretch: a phase vocoder stretches a spectrogram in time; the expected
phase advance per bin is kept as a plain tensor attribute."""
import math

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def phase_vocoder(spec, rate, phase_advance):
    # spec: (freq, time, 2) real/imag
    time_steps = torch.arange(0, spec.size(1), rate, device=spec.device, dtype=spec.dtype)
    alphas = (time_steps % 1.0)[..., None]
    spec = nn.functional.pad(spec, [0, 0, 0, 2])
    idx0 = time_steps.long()
    s0, s1 = spec[:, idx0], spec[:, idx0 + 1]
    angle_0, angle_1 = torch.atan2(s0[..., 1], s0[..., 0]), torch.atan2(s1[..., 1], s1[..., 0])
    norm_0, norm_1 = s0.norm(dim=-1), s1.norm(dim=-1)
    phase = angle_1 - angle_0 - phase_advance  # BUG:op
    phase = phase - 2 * math.pi * torch.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase_acc = torch.cumsum(phase, -1)
    mag = alphas.squeeze(-1) * norm_1 + (1 - alphas.squeeze(-1)) * norm_0
    return torch.stack([mag * torch.cos(phase_acc), mag * torch.sin(phase_acc)], dim=-1)


class TimeStretch(nn.Module):
    def __init__(self, hop_length=4, n_freq=5, fixed_rate=1.3):
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        self.phase_advance = torch.linspace(0, math.pi * hop_length, n_freq)[..., None]  # BUG:stray
        self.n_fft = n_fft

    def forward(self, complex_specgrams):
        return phase_vocoder(complex_specgrams, self.fixed_rate, self.phase_advance)


stretch = TimeStretch().to(device)
spec = torch.randn(5, 12, 2)
out = stretch(spec.to(device))
print(tuple(out.shape), round(out.abs().sum().item(), 3))
