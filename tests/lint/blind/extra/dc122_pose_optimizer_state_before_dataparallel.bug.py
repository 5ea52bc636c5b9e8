# devcheck bug corpus: DC122
# From: https://github.com/Daniil-Osokin/lightweight-human-pose-estimation.pytorch/issues/208
# Resuming training from a full checkpoint (not --weights-only) loaded the
# optimizer's and scheduler's state while the network was still on the CPU;
# the network was wrapped and moved to the GPU only after, and the first
# optimizer step failed: "Expected all tensors to be on the same device, but
# found at least two devices, cuda:0 and cpu!".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn import DataParallel


class PoseNet(nn.Module):
    def __init__(self, stages):
        super().__init__()
        self.backbone = nn.Conv2d(3, 32, 3, padding=1)
        self.heads = nn.ModuleList([nn.Conv2d(32, 19, 1) for _ in range(stages)])

    def forward(self, x):
        features = self.backbone(x)
        return [head(features) for head in self.heads]


def train(loader, checkpoint_path, weights_only, lr):
    net = PoseNet(stages=1)
    optimizer = optim.Adam(net.parameters(), lr=lr)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[100, 200], gamma=0.333)
    if checkpoint_path:
        checkpoint = torch.load(checkpoint_path, map_location="cpu")
        net.load_state_dict(checkpoint["state_dict"])
        if not weights_only:
            optimizer.load_state_dict(checkpoint["optimizer"])  # <- bug
            scheduler.load_state_dict(checkpoint["scheduler"])
    net = DataParallel(net).cuda()  # <- bug
    net.train()
    for images, heatmaps in loader:
        images, heatmaps = images.cuda(), heatmaps.cuda()
        outputs = net(images)
        loss = sum(((out - heatmaps) ** 2).mean() for out in outputs)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
