# devcheck bug corpus: DC122
# From: https://github.com/jwyang/faster-rcnn.pytorch/pull/327
# Resuming Faster R-CNN training on the GPU: the script built the model on
# the CPU, made the optimizer from its parameters, loaded the checkpoint's
# model and optimizer state, and only then (after the optional DataParallel
# wrap) moved the model with `fasterRCNN.cuda()`. optimizer.load_state_dict
# had put the momentum buffers where the parameters were at that moment,
# the CPU, and the first step after resuming mixed them with the CUDA
# gradients (issues #325, #222). The PR moves the model to the GPU before
# the checkpoint is loaded.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn as nn


class FasterRCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(7))
        self.cls_score = nn.Linear(64 * 49, num_classes)

    def forward(self, im_data):
        feats = self.base(im_data).flatten(1)
        return self.cls_score(feats)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--mGPUs", action="store_true")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--checkepoch", type=int, default=1)
    args = parser.parse_args()
    output_dir = "models/res101/pascal_voc"
    fasterRCNN = FasterRCNN(21)
    lr = args.lr
    params = []
    for key, value in dict(fasterRCNN.named_parameters()).items():
        if value.requires_grad:
            if "bias" in key:
                params += [{"params": [value], "lr": lr * 2, "weight_decay": 0}]
            else:
                params += [{"params": [value], "lr": lr, "weight_decay": 0.0001}]
    optimizer = torch.optim.SGD(params, momentum=0.9)
    start_epoch = 1
    if args.resume:
        load_name = os.path.join(output_dir, "faster_rcnn_1_{}.pth".format(args.checkepoch))
        checkpoint = torch.load(load_name)
        start_epoch = checkpoint["epoch"]
        fasterRCNN.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])  # <- bug
        lr = optimizer.param_groups[0]["lr"]
    if args.mGPUs:
        fasterRCNN = nn.DataParallel(fasterRCNN)
    if args.cuda:
        fasterRCNN.cuda()
    for epoch in range(start_epoch, 21):
        fasterRCNN.train()
        im_data = torch.randn(2, 3, 224, 224)
        labels = torch.randint(0, 21, (2,))
        if args.cuda:
            im_data, labels = im_data.cuda(), labels.cuda()
        loss = nn.functional.cross_entropy(fasterRCNN(im_data), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
