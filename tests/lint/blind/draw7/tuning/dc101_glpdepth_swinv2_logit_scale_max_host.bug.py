# devcheck bug corpus: DC101
# From: https://github.com/vinvino02/GLPDepth/issues/38
# The Swin-V2 window attention of the depth model clamps its learned logit
# scale with a maximum made by torch.tensor(1. / 0.01) and no device; clamp's
# tensor max must be on the input's device, so evaluating the model on the
# GPU fails at the first attention block.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class WindowAttention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        logit_scale = torch.clamp(self.logit_scale, max=torch.log(torch.tensor(1.0 / 0.01))).exp()  # <- bug
        attn = (attn * logit_scale).softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(B, N, C))


class SwinV2Block(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.attn = WindowAttention(dim, num_heads)
        self.norm1 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x):
        x = x + self.norm1(self.attn(x))
        return x + self.norm2(self.mlp(x))


class GLPDepth(nn.Module):
    def __init__(self, max_depth=10.0, dim=96):
        super().__init__()
        self.max_depth = max_depth
        self.patch_embed = nn.Conv2d(3, dim, 4, 4)
        self.blocks = nn.ModuleList([SwinV2Block(dim, 3) for _ in range(2)])
        self.decoder = nn.Sequential(nn.ConvTranspose2d(dim, 32, 4, 4), nn.ReLU(), nn.Conv2d(32, 1, 3, padding=1))

    def forward(self, x):
        f = self.patch_embed(x)
        B, C, H, W = f.shape
        t = f.flatten(2).transpose(1, 2)
        for blk in self.blocks:
            t = blk(t)
        f = t.transpose(1, 2).reshape(B, C, H, W)
        return torch.sigmoid(self.decoder(f)) * self.max_depth


def evaluate(model, loader, device, max_depth_eval):
    model.eval()
    errors = []
    with torch.no_grad():
        for image, depth_gt in loader:
            image, depth_gt = image.to(device), depth_gt.to(device)
            pred = model(image)
            valid = (depth_gt > 1e-3) & (depth_gt < max_depth_eval)
            errors.append(torch.sqrt(((pred[valid] - depth_gt[valid]) ** 2).mean()).item())
    return float(np.mean(errors))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_depth", type=float, default=10.0)
    parser.add_argument("--max_depth_eval", type=float, default=10.0)
    args = parser.parse_args()
    device = torch.device("cuda")
    model = GLPDepth(max_depth=args.max_depth).to(device)
    loader = [(torch.rand(1, 3, 224, 224), torch.rand(1, 1, 224, 224) * 10)]
    print("rmse", evaluate(model, loader, device, args.max_depth_eval))
