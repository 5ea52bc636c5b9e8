# devcheck bug corpus: DC113
# From: https://github.com/swz30/MPRNet/issues/128
# MPRNet's training script summed the per-stage losses of the multi-stage
# restoration network with np.sum over a list of loss tensors. The model and
# the batches are on the GPU, so NumPy had to convert CUDA tensors: "can't
# convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
# tensor to host memory first." The answer in the thread: sum them with
# torch.sum(torch.stack([...])) instead.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

from dataset import get_training_data


class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-3):
        super().__init__()
        self.eps = eps

    def forward(self, x, y):
        diff = x - y
        return torch.mean(torch.sqrt(diff * diff + self.eps * self.eps))


class MultiStageNet(nn.Module):
    def __init__(self, stages=3, feats=32):
        super().__init__()
        self.stages = nn.ModuleList(
            [nn.Sequential(nn.Conv2d(3, feats, 3, padding=1), nn.PReLU(), nn.Conv2d(feats, 3, 3, padding=1)) for _ in range(stages)]
        )

    def forward(self, x):
        outs = []
        for stage in self.stages:
            x = x + stage(x)
            outs.insert(0, x)
        return outs


model_restoration = MultiStageNet()
model_restoration.cuda()
if torch.cuda.device_count() > 1:
    model_restoration = nn.DataParallel(model_restoration)
optimizer = optim.Adam(model_restoration.parameters(), lr=2e-4, betas=(0.9, 0.999), eps=1e-8)
criterion_char = CharbonnierLoss()
train_dataset = get_training_data("./Datasets/GoPro/train", {"patch_size": 256})
train_loader = DataLoader(train_dataset, batch_size=16, shuffle=True, num_workers=8, pin_memory=True)
for epoch in range(1, 3001):
    epoch_loss = 0
    model_restoration.train()
    for data in train_loader:
        for param in model_restoration.parameters():
            param.grad = None
        target = data[0].cuda()
        input_ = data[1].cuda()
        restored = model_restoration(input_)
        loss = np.sum([criterion_char(restored[j], target) for j in range(len(restored))])  # <- bug
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print(epoch, epoch_loss)
