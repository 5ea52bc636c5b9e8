# devcheck bug corpus: DC115
# From: https://github.com/facebookresearch/sam3/pull/592
# Fixed: the dummy tensors are made on "cuda" only when CUDA is available,
# on the CPU otherwise.
# Written for devcheck's tests after the thread; not the project's code.
import math
from typing import Optional

import torch
from torch import nn


class PositionEmbeddingSine(nn.Module):
    def __init__(self, num_pos_feats, temperature: int = 10000, normalize: bool = True,
                 scale: Optional[float] = None, precompute_resolution: Optional[int] = None):
        super().__init__()
        assert num_pos_feats % 2 == 0, "Expecting even model width"
        self.num_pos_feats = num_pos_feats // 2
        self.temperature = temperature
        self.normalize = normalize
        self.scale = 2 * math.pi if scale is None else scale
        self.cache = {}
        if precompute_resolution is not None:
            precompute_sizes = [(precompute_resolution // s, precompute_resolution // s) for s in (4, 8, 16, 32)]
            device = "cuda" if torch.cuda.is_available() else "cpu"  # <- fixed
            for size in precompute_sizes:
                tensors = torch.zeros((1, 1) + size, device=device)  # <- fixed
                self.forward(tensors)
                self.cache[size] = self.cache[size].clone().detach()

    @torch.no_grad()
    def forward(self, x):
        cache_key = (x.shape[-2], x.shape[-1])
        if cache_key in self.cache:
            return self.cache[cache_key][None].repeat(x.shape[0], 1, 1, 1)
        y_embed = torch.arange(1, x.shape[-2] + 1, dtype=torch.float32, device=x.device).view(1, -1, 1).repeat(x.shape[0], 1, x.shape[-1])
        x_embed = torch.arange(1, x.shape[-1] + 1, dtype=torch.float32, device=x.device).view(1, 1, -1).repeat(x.shape[0], x.shape[-2], 1)
        if self.normalize:
            y_embed = y_embed / (y_embed[:, -1:, :] + 1e-6) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + 1e-6) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32, device=x.device)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = torch.stack((pos_x[..., 0::2].sin(), pos_x[..., 1::2].cos()), dim=4).flatten(3)
        pos_y = torch.stack((pos_y[..., 0::2].sin(), pos_y[..., 1::2].cos()), dim=4).flatten(3)
        pos = torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)
        self.cache[cache_key] = pos[0]
        return pos


def build_backbone_position_encoding(d_model=256, resolution=1008):
    return PositionEmbeddingSine(num_pos_feats=d_model, normalize=True, precompute_resolution=resolution)
