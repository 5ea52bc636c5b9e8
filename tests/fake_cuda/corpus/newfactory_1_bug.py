# kind: new-vs-factory
# source: https://github.com/kymatio/kymatio/pull/346
# fix: output = x.new_zeros(x.shape + (2,)) -- "one of the bugs was caused by torch.zeros(x.shape + (2,), dtype=x.dtype), where we didn't specify device"
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""A 2-D scattering-style front end: the padded input becomes a complex tensor
stored as a trailing (real, imag) pair, then is filtered in Fourier space."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pad(nn.Module):
    def __init__(self, pad_size):
        super().__init__()
        self.padding_module = nn.ReflectionPad2d(pad_size)

    def forward(self, x):
        x = self.padding_module(x)
        output = torch.zeros(x.shape + (2,), dtype=x.dtype)  # BUG:stray
        output[..., 0] = x
        return output


def cdgmm(a, b):
    # complex multiply of a (..., M, N, 2) by filter b (M, N, 2)
    real = a[..., 0] * b[..., 0] - a[..., 1] * b[..., 1]  # BUG:op
    imag = a[..., 0] * b[..., 1] + a[..., 1] * b[..., 0]
    return torch.stack((real, imag), dim=-1)


class Scattering(nn.Module):
    def __init__(self, M, N, pad=2, filters=3):
        super().__init__()
        self.pad = Pad(pad)
        self.register_buffer("psi", torch.randn(filters, M + 2 * pad, N + 2 * pad, 2))

    def forward(self, x):
        U = self.pad(x)
        U_hat = torch.view_as_real(torch.fft.fft2(torch.view_as_complex(U)))
        out = [cdgmm(U_hat, self.psi[j]) for j in range(self.psi.size(0))]
        return torch.stack(out, 1).pow(2).sum(-1).mean((-1, -2))


scattering = Scattering(8, 8).to(device)
classifier = nn.Linear(3, 2).to(device)
images = torch.randn(4, 8, 8)
labels = torch.tensor([0, 1, 1, 0])
features = scattering(images.to(device))
loss = nn.functional.cross_entropy(classifier(features), labels.to(device))
print("loss", round(loss.item(), 4))
