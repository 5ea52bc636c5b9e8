# devcheck bug corpus: DC111
# From: https://github.com/torchgeo/torchgeo/pull/3232
# TorchGeo's CROMA model computes its 2D ALiBi attention bias once in
# __init__ and keeps it as a plain attribute; moving the model to the GPU
# leaves the bias on the CPU, and every attention layer adds it to GPU
# attention scores.
# Written for devcheck's tests after the thread; not the project's code.
import itertools
import math

import torch
import torch.nn as nn
from torch import Tensor


def get_2dalibi(num_heads: int, num_patches: int) -> Tensor:
    side = int(math.sqrt(num_patches))
    points = list(itertools.product(range(side), range(side)))
    start = 2 ** (-(2 ** -(math.log2(num_heads) - 3)))
    slopes = torch.Tensor([start * start**i for i in range(num_heads)]).unsqueeze(1)
    idxs = [math.dist(p1, p2) * slopes * -1 for p1 in points for p2 in points]
    return torch.cat(idxs, dim=1).view(1, num_heads, num_patches, num_patches)


class Attention(nn.Module):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads, self.scale = num_heads, (dim // num_heads) ** -0.5
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)
        self.input_norm = nn.LayerNorm(dim)

    def forward(self, x, relative_position_bias):
        b, n, d = x.shape
        q, k, v = self.to_qkv(self.input_norm(x)).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.num_heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-1, -2)) * self.scale + relative_position_bias
        out = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, d)
        return self.to_out(out)


class ViT(nn.Module):
    def __init__(self, dim, depth, in_channels, num_heads, patch_size=8):
        super().__init__()
        self.patchify = nn.Conv2d(in_channels, dim, patch_size, stride=patch_size)
        self.layers = nn.ModuleList(Attention(dim, num_heads) for _ in range(depth))

    def forward(self, imgs, attn_bias):
        x = self.patchify(imgs).flatten(2).transpose(1, 2)
        for layer in self.layers:
            x = x + layer(x, attn_bias)
        return x


class CROMA(nn.Module):
    def __init__(self, encoder_dim=768, encoder_depth=12, num_heads=16, image_size=120):
        super().__init__()
        self.num_heads = num_heads
        self.num_patches = int((image_size / 8) ** 2)
        self.attn_bias = get_2dalibi(num_heads=self.num_heads, num_patches=self.num_patches)  # <- bug
        self.s2_encoder = ViT(encoder_dim, encoder_depth, 12, num_heads)
        self.s2_GAP_FFN = nn.Sequential(nn.LayerNorm(encoder_dim), nn.Linear(encoder_dim, encoder_dim))

    def forward(self, x_optical):
        optical_encodings = self.s2_encoder(imgs=x_optical, attn_bias=self.attn_bias)
        return {"optical_encodings": optical_encodings,
                "optical_GAP": self.s2_GAP_FFN(optical_encodings.mean(dim=1))}


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CROMA(encoder_dim=64, encoder_depth=2, num_heads=4).to(device)
    out = model(torch.randn(2, 12, 120, 120, device=device))
    print(out["optical_GAP"].shape)
