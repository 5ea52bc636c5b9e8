# devcheck bug corpus: DC101
# From: https://github.com/lucidrains/byol-pytorch/pull/30
# From: https://github.com/lucidrains/byol-pytorch/commit/8efcc905d565b6ca33a9c7d814cb0687bc06a282
# Fixed: the wrapper moves itself to the device of the network it is given
# and makes the mock images on that device.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import models


class MLP(nn.Module):
    def __init__(self, dim, projection_size, hidden_size=4096):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden_size), nn.BatchNorm1d(hidden_size),
                                 nn.ReLU(inplace=True), nn.Linear(hidden_size, projection_size))

    def forward(self, x):
        return self.net(x)


class NetWrapper(nn.Module):
    def __init__(self, net, projection_size, projection_hidden_size):
        super().__init__()
        self.net = net
        self.net.fc = nn.Identity()
        self.projector = None
        self.projection_size = projection_size
        self.projection_hidden_size = projection_hidden_size

    def forward(self, x):
        rep = self.net(x).flatten(1)
        if self.projector is None:
            self.projector = MLP(rep.shape[-1], self.projection_size, self.projection_hidden_size).to(rep)
        return self.projector(rep)


def loss_fn(x, y):
    return 2 - 2 * (F.normalize(x, dim=-1) * F.normalize(y, dim=-1)).sum(dim=-1)


class BYOL(nn.Module):
    def __init__(self, net, image_size, projection_size=256, projection_hidden_size=4096):
        super().__init__()
        self.online_encoder = NetWrapper(net, projection_size, projection_hidden_size)
        self.online_predictor = MLP(projection_size, projection_size, projection_hidden_size)
        self.target_encoder = None
        device = next(net.parameters()).device  # <- fixed
        self.to(device)  # <- fixed
        self.forward(torch.randn(2, 3, image_size, image_size, device=device))  # <- fixed

    def forward(self, x):
        online_one = self.online_predictor(self.online_encoder(x.flip(-1)))
        online_two = self.online_predictor(self.online_encoder(x))
        with torch.no_grad():
            if self.target_encoder is None:
                self.target_encoder = copy.deepcopy(self.online_encoder)
            target_one = self.target_encoder(x.flip(-1))
            target_two = self.target_encoder(x)
        return (loss_fn(online_one, target_two) + loss_fn(online_two, target_one)).mean()


resnet = models.resnet50(weights=None).cuda()
learner = BYOL(resnet, image_size=256, projection_size=128, projection_hidden_size=2048).cuda()
opt = torch.optim.Adam(learner.parameters(), lr=3e-4)
for _ in range(10):
    loss = learner(torch.randn(20, 3, 256, 256).cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
