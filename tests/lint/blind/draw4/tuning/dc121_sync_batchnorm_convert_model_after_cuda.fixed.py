# devcheck bug corpus: DC121
# From: https://github.com/vacancy/Synchronized-BatchNorm-PyTorch/issues/37
# The fix the maintainer gave: call model.cuda() after convert_model, so the
# SynchronizedBatchNorm layers it makes are moved to the GPU with the rest.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from sync_batchnorm import convert_model


class SegNet(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(inplace=True),
        )
        self.head = nn.Conv2d(128, num_classes, 1)

    def forward(self, x):
        return self.head(self.body(x))


def main(loader, epochs=10):
    model = SegNet()
    model.cuda()
    model = nn.DataParallel(model)
    model = convert_model(model)  # <- fixed
    model.cuda()  # <- fixed
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(epochs):
        for images, masks in loader:
            images, masks = images.cuda(), masks.cuda()
            loss = F.cross_entropy(model(images), masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
