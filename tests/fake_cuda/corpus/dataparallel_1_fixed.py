# kind: dataparallel-order
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/d2l-ai/d2l-en/pull/2461
# fix: move the network to devices[0] before (or right after) wrapping it in nn.DataParallel
"""Concise multi-GPU training, run directly without the single-GPU section
before it: the network is wrapped in nn.DataParallel but never moved."""
import torch
from torch import nn

torch.manual_seed(0)


def try_all_gpus():
    devices = [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
    return devices if devices else [torch.device("cpu")]


def resnet_like(num_classes=10):
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, num_classes))


def train(net, num_gpus, lr=0.1):
    devices = try_all_gpus()[:num_gpus]

    def init_weights(module):
        if type(module) in [nn.Linear, nn.Conv2d]:
            nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    net = nn.DataParallel(net, device_ids=devices).to(devices[0])
    trainer = torch.optim.SGD(net.parameters(), lr)
    loss = nn.CrossEntropyLoss()
    X_all, y_all = torch.randn(16, 1, 8, 8), torch.randint(0, 10, (16,))
    for epoch in range(2):
        net.train()
        for i in range(0, 16, 8):
            X, y = X_all[i:i + 8].to(devices[0]), y_all[i:i + 8].to(devices[0])
            trainer.zero_grad()
            l = loss(net(X), y)
            l.backward()
            trainer.step()
    return l.item()


print("loss", round(train(resnet_like(), num_gpus=2), 4))
