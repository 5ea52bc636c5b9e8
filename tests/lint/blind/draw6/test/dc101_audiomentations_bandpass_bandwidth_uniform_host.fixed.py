# devcheck bug corpus: DC101
# From: https://github.com/iver56/torch-audiomentations/issues/137
# The fix (PR #138) gives the bandwidth Uniform tensor bounds made on the
# samples' device, so the bandwidths are drawn where the center frequencies are.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn


def hz_to_mel(freq):
    return 2595.0 * torch.log10(1.0 + freq / 700.0)


def mel_to_hz(mel):
    return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)


class BandPassFilter(nn.Module):
    def __init__(self, min_center_frequency=200.0, max_center_frequency=4000.0,
                 min_bandwidth_fraction=0.5, max_bandwidth_fraction=1.99, p=0.5):
        super().__init__()
        self.min_center_frequency = min_center_frequency
        self.max_center_frequency = max_center_frequency
        self.min_bandwidth_fraction = min_bandwidth_fraction
        self.max_bandwidth_fraction = max_bandwidth_fraction
        self.p = p
        self.transform_parameters = {}

    def randomize_parameters(self, samples):
        batch_size = samples.shape[0]
        center_dist = torch.distributions.Uniform(
            low=hz_to_mel(torch.tensor(self.min_center_frequency, dtype=torch.float32, device=samples.device)),
            high=hz_to_mel(torch.tensor(self.max_center_frequency, dtype=torch.float32, device=samples.device)),
            validate_args=True,
        )
        self.transform_parameters["center_freq"] = mel_to_hz(center_dist.sample(sample_shape=(batch_size,)))
        bandwidth_dist = torch.distributions.Uniform(
            low=torch.tensor(self.min_bandwidth_fraction, dtype=torch.float32, device=samples.device),  # <- fixed
            high=torch.tensor(self.max_bandwidth_fraction, dtype=torch.float32, device=samples.device),  # <- fixed
        )
        self.transform_parameters["bandwidth"] = bandwidth_dist.sample(sample_shape=(batch_size,))

    def apply_transform(self, samples, sample_rate):
        center = self.transform_parameters["center_freq"]
        bandwidth = self.transform_parameters["bandwidth"]
        low = center * (1 - 0.5 * bandwidth) / sample_rate
        high = center * (1 + 0.5 * bandwidth) / sample_rate
        spectrum = torch.fft.rfft(samples, dim=-1)
        freqs = torch.fft.rfftfreq(samples.shape[-1], device=samples.device)
        mask = (freqs[None, :] >= low[:, None]) & (freqs[None, :] <= high[:, None])
        return torch.fft.irfft(spectrum * mask[:, None, :], n=samples.shape[-1], dim=-1)

    def forward(self, samples, sample_rate):
        if torch.rand(1).item() > self.p:
            return samples
        self.randomize_parameters(samples)
        return self.apply_transform(samples, sample_rate)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    augment = BandPassFilter(p=1.0)
    t = torch.arange(16000, device=device) / 16000
    audio = torch.sin(2 * math.pi * 440 * t).repeat(8, 1, 1)
    print(augment(audio, sample_rate=16000).shape)
