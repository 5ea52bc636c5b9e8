# devcheck bug corpus: DC122
# From: https://github.com/cv-lee/BraTs/pull/10
# Resuming training of the BraTS segmentation models built the network on
# the CPU, made its SGD optimizer, and loaded the checkpoint (model and
# optimizer state) before moving the network to the GPU and wrapping it in
# DataParallel. Loading put the momentum buffers where the parameters were
# then, on the CPU; the first step after resuming mixed them with the GPU
# parameters: "Expected all tensors to be on the same device, but found at
# least two devices, cuda:0 and cpu!".
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.nn as nn
from torch.optim import SGD


class UNet(nn.Module):
    def __init__(self, in_channel, class_num):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_channel, 32, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(32, class_num, 1)

    def forward(self, x):
        return self.head(self.enc(x))


class Checkpoint:
    def __init__(self, model, optimizer=None, epoch=0, best_score=1):
        self.model = model
        self.optimizer = optimizer
        self.epoch = epoch
        self.best_score = best_score

    def load(self, path):
        checkpoint = torch.load(path)
        self.model.load_state_dict(checkpoint["model_state"])
        self.epoch = checkpoint["epoch"]
        self.best_score = checkpoint["best_score"]
        if self.optimizer:
            self.optimizer.load_state_dict(checkpoint["optimizer_state"])  # <- bug

    def save(self, path):
        torch.save({"model_state": self.model.module.state_dict(),
                    "optimizer_state": self.optimizer.state_dict(),
                    "epoch": self.epoch, "best_score": self.best_score}, path)


def load_model(args, class_num, mode, device):
    net = UNet(args.in_channel, class_num)
    if mode == "train":
        resume = args.resume
        optimizer = SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    else:
        resume = True
        optimizer = None
    if resume:
        checkpoint = Checkpoint(net, optimizer)
        checkpoint.load(os.path.join(args.ckpt_root, args.model + ".tar"))  # <- bug
        best_score = checkpoint.best_score
        start_epoch = checkpoint.epoch + 1
    else:
        best_score = 0
        start_epoch = 1
    if device == "cuda":
        net.cuda()
        net = torch.nn.DataParallel(net)
        torch.backends.cudnn.benchmark = True
    return net, optimizer, best_score, start_epoch
