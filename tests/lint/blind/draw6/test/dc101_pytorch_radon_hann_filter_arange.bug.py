# devcheck bug corpus: DC101
# From: https://github.com/phernst/pytorch_radon/pull/2
# The Hann filter of the filtered back projection builds its window from
# torch.arange(0, n) on the CPU and multiplies it into the ramp spectrum, which
# the filter's forward has already moved to the sinogram's device: on a GPU
# sinogram the product mixes cuda and cpu.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

PI = math.pi


def ramp_spectrum(size):
    n = torch.cat([torch.arange(1, size // 2 + 1, 2), torch.arange(size // 2 - 1, 0, -2)]).double()
    f = torch.zeros(size, dtype=torch.double)
    f[0] = 0.25
    f[1::2] = -1.0 / (PI * n) ** 2
    return 2.0 * torch.fft.fft(f).real.float()


class SinogramFilter(nn.Module):
    def forward(self, x):
        size = x.shape[2]
        padded = max(64, int(2 ** math.ceil(math.log2(2 * size))))
        x_pad = F.pad(x, (0, 0, 0, padded - size))
        ramp = ramp_spectrum(padded).to(x.device)
        window = self.create_filter(ramp).unsqueeze(-1)
        spectrum = torch.fft.fft(x_pad, dim=2) * window
        return torch.fft.ifft(spectrum, dim=2).real[:, :, :size, :]

    def create_filter(self, fourier_ramp):
        raise NotImplementedError


class RampFilter(SinogramFilter):
    def create_filter(self, fourier_ramp):
        return fourier_ramp


class HannFilter(SinogramFilter):
    def create_filter(self, fourier_ramp):
        n = torch.arange(0, fourier_ramp.shape[0])  # <- bug
        hann = 0.5 - 0.5 * (2.0 * PI * n / (fourier_ramp.shape[0] - 1)).cos()
        return fourier_ramp * hann.roll(hann.shape[0] // 2, 0)


class IRadon(nn.Module):
    def __init__(self, in_size, theta, use_filter=None):
        super().__init__()
        self.in_size = in_size
        self.register_buffer("theta", torch.tensor(theta, dtype=torch.float32) * PI / 180)
        self.filter = use_filter if use_filter is not None else RampFilter()

    def forward(self, sinogram):
        filtered = self.filter(sinogram)
        lin = torch.linspace(-1, 1, self.in_size, device=sinogram.device)
        ys, xs = torch.meshgrid(lin, lin, indexing="ij")
        recon = torch.zeros(sinogram.shape[0], 1, self.in_size, self.in_size, device=sinogram.device)
        for i, angle in enumerate(self.theta):
            t = xs * angle.cos() - ys * angle.sin()
            grid = torch.stack([torch.full_like(t, 2.0 * i / (len(self.theta) - 1) - 1), t], dim=-1)
            recon += F.grid_sample(filtered, grid.unsqueeze(0).expand(sinogram.shape[0], -1, -1, -1), align_corners=True)
        return recon * PI / (2 * len(self.theta))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    angles = [float(a) for a in range(0, 180, 2)]
    iradon = IRadon(128, angles, use_filter=HannFilter()).to(device)
    sino = torch.rand(4, 1, 128, len(angles), device=device)
    print(iradon(sino).shape)
