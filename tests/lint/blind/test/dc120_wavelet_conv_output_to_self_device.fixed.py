# devcheck bug corpus: DC120
# From: https://github.com/spdlearn/spd_learn/pull/16
# WaveletConv.forward returned its output moved to self.device, a constructor
# argument that defaults to "cpu", whatever the input's device: on the GPU the
# output came back on the host and met the next layer's CUDA weights. The fix
# used X.device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class WaveletConv(nn.Module):
    def __init__(self, n_filters, device="cpu"):
        super().__init__()
        self.device = device
        self.filters = nn.Parameter(torch.randn(n_filters, 1, 9))

    def forward(self, X):
        out = nn.functional.conv1d(X, self.filters, padding=4)
        return out.to(X.device)  # <- fixed


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.wavelet = WaveletConv(8)
        self.head = nn.Linear(8 * 128, 2)

    def forward(self, X):
        return self.head(self.wavelet(X).flatten(1))  # <- fixed


def predict(X):
    model = Net().to("cuda")
    return model(X.to("cuda"))
