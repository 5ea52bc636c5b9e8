# devcheck bug corpus: DC103
# From: https://github.com/AlonzoLeeeooo/StableV2V/pull/14
# The fix moves the input depth maps and the mask tensor to the device of the
# predicted depth maps before the blend.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import cv2
import numpy as np
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class DepthCompletionNet(nn.Module):
    def __init__(self, in_channels=5, out_channels=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv3d(in_channels, 32, 3, padding=1), nn.ReLU(), nn.Conv3d(32, out_channels, 3, padding=1))

    def forward(self, depth, mask, shape):
        x = torch.cat([depth, mask, shape], dim=2).transpose(1, 2)
        return torch.sigmoid(self.body(x)).transpose(1, 2), None


def read_frames(folder, n, size, as_mask=False):
    frames = []
    for name in sorted(os.listdir(folder))[:n]:
        img = cv2.resize(cv2.imread(os.path.join(folder, name)), size)
        t = torch.from_numpy(img.astype(np.float32) / 255.0).permute(2, 0, 1)  # <- fixed
        if as_mask:
            t = (t.mean(dim=0, keepdim=True) > 0.5).float()
        frames.append(t)
    return torch.stack(frames, dim=0).unsqueeze(0)


def depth_completion(args):
    net = DepthCompletionNet()
    net.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    net = net.to(device)
    net.eval()
    size = (args.width, args.height)
    depth_maps_tensor = read_frames(args.depth_dir, args.n_frames, size)
    mask_tensor = read_frames(args.mask_dir, args.n_frames, size, as_mask=True)
    shape_tensor = read_frames(args.shape_dir, args.n_frames, size, as_mask=True)
    with torch.no_grad():
        pred_depth_maps, _ = net(depth_maps_tensor.to(device), mask_tensor.to(device), shape_tensor.to(device))
    pred_depth_maps = pred_depth_maps.to(device)
    depth_maps_tensor = depth_maps_tensor.to(pred_depth_maps.device)  # <- fixed
    mask_tensor = mask_tensor.to(pred_depth_maps.device)  # <- fixed
    pred_depth_maps = (1 - mask_tensor) * depth_maps_tensor + mask_tensor * pred_depth_maps  # <- fixed
    os.makedirs(args.outdir, exist_ok=True)
    for i in range(pred_depth_maps.size(1)):
        frame = (pred_depth_maps[0, i].permute(1, 2, 0) * 255.0).cpu().numpy().astype(np.uint8)
        cv2.imwrite(os.path.join(args.outdir, f"{i:05d}.png"), frame)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for name in ("--depth_dir", "--mask_dir", "--shape_dir", "--checkpoint", "--outdir"):
        parser.add_argument(name, required=True)
    parser.add_argument("--n_frames", type=int, default=16)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--height", type=int, default=512)
    depth_completion(parser.parse_args())
