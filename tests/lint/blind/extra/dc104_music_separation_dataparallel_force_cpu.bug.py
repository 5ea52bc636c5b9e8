# devcheck bug corpus: DC104
# From: https://github.com/ZFTurbo/Music-Source-Separation-Training/pull/64
# A source-separation training script took `--force_cpu` and `--device_ids`;
# with `--force_cpu` it kept the model on the CPU but still wrapped it in
# `nn.DataParallel(model, device_ids=args.device_ids)` whenever device ids
# were given (their default is [0]), and the first forward failed: "module
# must have its parameters and buffers on device cuda:0 (device_ids[0]) but
# found one of them on device: cpu". The fix wraps only when the model is on
# CUDA and more than one device is asked for.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class Separator(nn.Module):
    def __init__(self, stems=4):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(2, 64, 7, padding=3), nn.ReLU(), nn.Conv1d(64, 2 * stems, 7, padding=3))

    def forward(self, mix):
        return self.net(mix)


def train(args, loader):
    model = Separator()
    if args.force_cpu:
        device = "cpu"
        model = model.to(device)
    else:
        device = f"cuda:{args.device_ids[0]}"
        model = model.to(device)
    if isinstance(args.device_ids, list):
        model = nn.DataParallel(model, device_ids=args.device_ids)  # <- bug
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for mix, stems in loader:
        loss = nn.functional.l1_loss(model(mix.to(device)), stems.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--force_cpu", action="store_true")
    parser.add_argument("--device_ids", nargs="+", type=int, default=[0])
    train(parser.parse_args(), [])
