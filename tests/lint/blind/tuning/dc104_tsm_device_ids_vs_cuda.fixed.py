# devcheck bug corpus: DC104
# From: https://github.com/mit-han-lab/temporal-shift-module/issues/24
# Training with --gpus 1: the model was wrapped in DataParallel with
# device_ids=args.gpus and then moved with .cuda(), which puts it on cuda:0, not
# on device_ids[0]: "module must have its parameters and buffers on device
# cuda:1 (device_ids[0]) but found one of them on device: cuda:0".
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", nargs="+", type=int, default=None)
    args = parser.parse_args()
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())
    model = torch.nn.DataParallel(model.cuda(args.gpus[0]), device_ids=args.gpus)  # <- fixed
    x = torch.randn(2, 3, 32, 32)
    print(model(x).shape)
