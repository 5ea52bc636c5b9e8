# devcheck bug corpus: DC112
# From: https://github.com/braindecode/braindecode/issues/450
# From: https://github.com/braindecode/braindecode/pull/451
# The fix makes the padding with x.new_zeros(...), on the input's own device
# (and dtype), instead of host zeros moved with a bare .cuda().
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.nn.functional import elu


class _ResidualBlock(nn.Module):
    def __init__(self, in_filters, out_filters, dilation, filter_time_length=3, nonlinearity=elu):
        super().__init__()
        pad = (filter_time_length - 1) * dilation[0] // 2
        assert (out_filters - in_filters) % 2 == 0, "need an even number of extra channels"
        self.n_pad_chans = out_filters - in_filters
        self.conv_1 = nn.Conv2d(in_filters, out_filters, (filter_time_length, 1), dilation=dilation, padding=(pad, 0))
        self.bn1 = nn.BatchNorm2d(out_filters, momentum=0.1, eps=1e-4)
        self.conv_2 = nn.Conv2d(out_filters, out_filters, (filter_time_length, 1), dilation=dilation, padding=(pad, 0))
        self.bn2 = nn.BatchNorm2d(out_filters, momentum=0.1, eps=1e-4)
        self.nonlinearity = nonlinearity

    def forward(self, x):
        stack_1 = self.nonlinearity(self.bn1(self.conv_1(x)))
        stack_2 = self.bn2(self.conv_2(stack_1))
        if self.n_pad_chans != 0:
            zeros_for_padding = x.new_zeros((x.size(0), self.n_pad_chans // 2, x.size(2), x.size(3)))  # <- fixed
            x = torch.cat((zeros_for_padding, x, zeros_for_padding), dim=1)
        return self.nonlinearity(x + stack_2)


class EEGResNet(nn.Module):
    def __init__(self, n_chans=22, n_classes=4, n_filters=20):
        super().__init__()
        self.first = nn.Conv2d(1, n_filters, (3, n_chans), padding=(1, 0))
        self.blocks = nn.Sequential(
            _ResidualBlock(n_filters, n_filters, (1, 1)),
            _ResidualBlock(n_filters, 2 * n_filters, (2, 1)),
            _ResidualBlock(2 * n_filters, 4 * n_filters, (4, 1)),
        )
        self.head = nn.Conv2d(4 * n_filters, n_classes, (1, 1))

    def forward(self, x):
        x = self.first(x.permute(0, 3, 2, 1))
        x = self.blocks(x)
        return self.head(x).mean(dim=(2, 3))


def main():
    n_gpus = torch.cuda.device_count()
    device = torch.device(f"cuda:{n_gpus - 1}" if n_gpus > 0 else "cpu")
    model = EEGResNet().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(3):
        x = torch.randn(16, 22, 500, 1, device=device)
        y = torch.randint(0, 4, (16,), device=device)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
