# devcheck bug corpus: DC104
# From: https://github.com/ZFTurbo/Music-Source-Separation-Training/pull/64
# Fixed: the model is wrapped in DataParallel only when it is on CUDA and more
# than one device is asked for.
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
    if not args.force_cpu and len(args.device_ids) > 1:
        model = nn.DataParallel(model, device_ids=args.device_ids)  # <- fixed
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
