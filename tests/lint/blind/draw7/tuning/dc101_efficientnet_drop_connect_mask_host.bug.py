# devcheck bug corpus: DC101
# From: https://github.com/lukemelas/EfficientNet-PyTorch/issues/43
# From: https://github.com/lukemelas/EfficientNet-PyTorch/commit/939d4abdeefc07e63d8bd42e7223365a4bc67942
# drop_connect() (stochastic depth in every MBConv block while training) makes
# its random keep-mask with torch.rand(..., dtype=inputs.dtype) and no device:
# training the EfficientNet on the GPU multiplies CUDA activations by a CPU
# mask ("expected backend CUDA ... but got backend CPU").
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.nn import functional as F


def drop_connect(inputs, p, training):
    if not training:
        return inputs
    batch_size = inputs.shape[0]
    keep_prob = 1 - p
    random_tensor = keep_prob
    random_tensor += torch.rand([batch_size, 1, 1, 1], dtype=inputs.dtype)  # <- bug
    binary_tensor = torch.floor(random_tensor)
    return inputs / keep_prob * binary_tensor


class MBConvBlock(nn.Module):
    def __init__(self, in_ch, out_ch, expand_ratio=6, stride=1):
        super().__init__()
        mid = in_ch * expand_ratio
        self._expand_conv = nn.Conv2d(in_ch, mid, 1, bias=False)
        self._bn0 = nn.BatchNorm2d(mid)
        self._depthwise_conv = nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=False)
        self._bn1 = nn.BatchNorm2d(mid)
        self._project_conv = nn.Conv2d(mid, out_ch, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(out_ch)
        self.id_skip = stride == 1 and in_ch == out_ch

    def forward(self, inputs, drop_connect_rate=None):
        x = F.silu(self._bn0(self._expand_conv(inputs)))
        x = F.silu(self._bn1(self._depthwise_conv(x)))
        x = self._bn2(self._project_conv(x))
        if self.id_skip:
            if drop_connect_rate:
                x = drop_connect(x, p=drop_connect_rate, training=self.training)
            x = x + inputs
        return x


class EfficientNet(nn.Module):
    def __init__(self, num_classes=10, drop_connect_rate=0.2):
        super().__init__()
        self._conv_stem = nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False)
        self._bn0 = nn.BatchNorm2d(32)
        self._blocks = nn.ModuleList([MBConvBlock(32, 32), MBConvBlock(32, 32), MBConvBlock(32, 64, stride=2)])
        self._fc = nn.Linear(64, num_classes)
        self.drop_connect_rate = drop_connect_rate

    def forward(self, inputs):
        x = F.silu(self._bn0(self._conv_stem(inputs)))
        for idx, block in enumerate(self._blocks):
            rate = self.drop_connect_rate * float(idx) / len(self._blocks)
            x = block(x, rate)
        return self._fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = EfficientNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.train()
    for step in range(10):
        images = torch.randn(16, 3, 64, 64, device=device)
        labels = torch.randint(0, 10, (16,), device=device)
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
