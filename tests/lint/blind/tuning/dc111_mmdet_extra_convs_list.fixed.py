# devcheck bug corpus: DC111
# From: https://github.com/open-mmlab/mmdetection/issues/638
# A block added to the FPN neck kept its convolutions in a plain Python list:
# they were not registered, so model.cuda() left their weights on the host:
# "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
# should be the same". The fix wrapped them in nn.Sequential.
# Written for devcheck's tests after the thread; not the project's code.
import torch.nn as nn


class FPNWithExtra(nn.Module):
    def __init__(self, in_channels, out_channels, num_extra):
        super().__init__()
        self.lateral = nn.Conv2d(in_channels, out_channels, 1)
        extra_convs = []
        for _ in range(num_extra):
            extra_convs.append(nn.Conv2d(out_channels, out_channels, 3, stride=2, padding=1))
        self.extra_convs = nn.Sequential(*extra_convs)  # <- fixed

    def forward(self, x):
        outs = [self.lateral(x)]
        for conv in self.extra_convs:
            outs.append(conv(outs[-1]))  # <- fixed
        return outs


def build(device):
    return FPNWithExtra(256, 256, 2).to(device)
