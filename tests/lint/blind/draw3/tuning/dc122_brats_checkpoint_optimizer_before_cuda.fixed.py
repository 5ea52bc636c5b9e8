# devcheck bug corpus: DC122
# From: https://github.com/cv-lee/BraTs/pull/10
# Fixed: after loading the optimizer's state, every tensor in it is moved
# to the GPU (state[k] = v.cuda()), where the parameters will be.
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
            self.optimizer.load_state_dict(checkpoint["optimizer_state"])  # <- fixed
            for state in self.optimizer.state.values():  # <- fixed
                for k, v in state.items():  # <- fixed
                    if torch.is_tensor(v):  # <- fixed
                        state[k] = v.cuda()  # <- fixed

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
        checkpoint.load(os.path.join(args.ckpt_root, args.model + ".tar"))  # <- fixed
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
