# devcheck bug corpus: DC120
# From: https://github.com/yuta-hi/pytorch_similarity/issues/1
# Fixed: the loss module, whose Sobel convolutions have weights, is moved to
# the device of the network and the images.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class GradientLayer2d(nn.Module):
    def __init__(self):
        super().__init__()
        sobel = torch.tensor([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
        self.conv_u = nn.Conv2d(1, 1, 3, padding=1, bias=False)
        self.conv_v = nn.Conv2d(1, 1, 3, padding=1, bias=False)
        self.conv_u.weight.data.copy_(sobel.view(1, 1, 3, 3))
        self.conv_v.weight.data.copy_(sobel.t().reshape(1, 1, 3, 3))

    def forward(self, x):
        return self.conv_u(x), self.conv_v(x)


class GradientCorrelationLoss2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.grad = GradientLayer2d()

    def forward(self, x, y):
        xu, xv = self.grad(x)
        yu, yv = self.grad(y)
        ncc = (xu * yu).mean() + (xv * yv).mean()
        return 1.0 - ncc / 2


def train(net, loader, device):
    net = net.to(device)
    loss_fn = GradientCorrelationLoss2d().to(device)  # <- fixed
    optimizer = torch.optim.Adam(net.parameters())
    for moving, fixed in loader:
        moving, fixed = moving.to(device), fixed.to(device)
        loss = loss_fn(net(moving), fixed)  # <- fixed
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
