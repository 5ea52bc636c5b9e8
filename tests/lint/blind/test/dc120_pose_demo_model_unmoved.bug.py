# devcheck bug corpus: DC120
# From: https://github.com/yuanyuanli85/Fast_Human_Pose_Estimation_Pytorch/issues/7
# The pose-estimation demo built the model and loaded its checkpoint but never
# moved it, while the input image went to the chosen device: "Input type
# (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the
# same". The fix added model = model.to(device).
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


def build_model():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--checkpoint")
    args = parser.parse_args()
    device = torch.device(args.device)
    model = build_model()
    checkpoint = torch.load(args.checkpoint, map_location="cpu")
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()
    image = torch.rand(1, 3, 256, 256).to(device)
    with torch.no_grad():
        heatmaps = model(image)  # <- bug
    print(heatmaps.shape)
