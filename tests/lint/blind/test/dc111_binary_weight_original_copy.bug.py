# devcheck bug corpus: DC111
# From: https://github.com/mzemlyanikin/binary-nets/issues/1
# A binarized convolution saved a copy of its real-valued weights in a plain
# attribute the first time it ran; after model.cuda() the copy stayed on the
# host and the restore step mixed it with the CUDA weights.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class BinaryConv2d(nn.Conv2d):
    def forward(self, x):
        if not hasattr(self, "original"):
            self.original = self.weight.data.clone()  # <- bug
        self.weight.data = self.weight.data.sign()
        out = super().forward(x)
        self.weight.data = self.original + 0 * self.weight.data  # <- bug
        return out


def run(model, x, device):
    model(x)
    model.cuda()
    return model(x.cuda())
