# devcheck bug corpus: DC111
# From: https://github.com/pytorch/audio/pull/457
# Fixed: the phase advance is registered as a buffer, so .cuda() / .to()
# move it with the transform.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch


def phase_vocoder(complex_specgrams, rate, phase_advance):
    time_steps = torch.arange(0, complex_specgrams.size(-1), rate,
                              device=complex_specgrams.device, dtype=phase_advance.dtype)
    alphas = time_steps % 1.0
    phase_0 = complex_specgrams[..., :1].angle()
    padded = torch.nn.functional.pad(complex_specgrams, [0, 2])
    s0 = padded.index_select(-1, time_steps.long())
    s1 = padded.index_select(-1, (time_steps + 1).long())
    phase = s1.angle() - s0.angle() - phase_advance
    phase = phase - 2 * math.pi * torch.round(phase / (2 * math.pi))
    phase = phase + phase_advance
    phase_acc = torch.cumsum(torch.cat([phase_0, phase[..., :-1]], dim=-1), -1)
    mag = alphas * s1.abs() + (1 - alphas) * s0.abs()
    return torch.polar(mag, phase_acc)


class TimeStretch(torch.nn.Module):
    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        super().__init__()
        self.fixed_rate = fixed_rate
        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.register_buffer("phase_advance", torch.linspace(0, math.pi * hop_length, n_freq)[..., None])  # <- fixed

    def forward(self, complex_specgrams, overriding_rate=None):
        rate = self.fixed_rate if overriding_rate is None else overriding_rate
        if rate == 1.0:
            return complex_specgrams
        return phase_vocoder(complex_specgrams, rate, self.phase_advance)


if __name__ == "__main__":
    m = TimeStretch().cuda()
    spec = torch.randn(1, 2, 201, 400, dtype=torch.cfloat).cuda()
    print(m(spec, 1.3).shape)
