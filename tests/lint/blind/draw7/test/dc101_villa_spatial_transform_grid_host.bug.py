# devcheck bug corpus: DC101
# From: https://github.com/ScrollPrize/villa/pull/913
# batchgeneratorsv2's SpatialTransform (vendored in villa) builds its sampling
# grid, the elastic offsets, the affine matrix, the centre shift and the output
# segmentation buffer on the CPU, and finds the labels through NumPy, while the
# transform is run inside a CUDA training loop on image and label tensors on
# the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import math

import numpy as np
import torch
import torch.nn as nn
from torch.nn.functional import grid_sample


def centered_identity_grid(size):
    space = [torch.linspace((1 - s) / 2, (s - 1) / 2, s) for s in size]
    return torch.stack(torch.meshgrid(space, indexing="ij"), -1)


def to_sample_grid(grid, shape):
    for d, s in enumerate(shape):
        grid[..., d] /= s / 2
    return torch.flip(grid, (grid.ndim - 1,))


def rotation_z(angle, scale):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.diag([scale] * 3)


class SpatialTransform:
    def __init__(self, patch_size, max_angle=0.5, elastic_magnitude=2.0):
        self.patch_size = patch_size
        self.max_angle = max_angle
        self.elastic_magnitude = elastic_magnitude

    def get_parameters(self, image):
        affine = rotation_z(np.random.uniform(-self.max_angle, self.max_angle), np.random.uniform(0.8, 1.2))
        offsets = torch.normal(0.0, 1.0, size=(*self.patch_size, 3)) * self.elastic_magnitude
        center = [i / 2 for i in image.shape[1:]]
        return {"affine": affine, "offsets": offsets, "center": center}

    def _grid(self, shape, p):
        grid = centered_identity_grid(self.patch_size)  # <- bug
        grid += p["offsets"]  # <- bug
        grid = torch.matmul(grid, torch.from_numpy(p["affine"]).float())  # <- bug
        mn = grid.mean(dim=(0, 1, 2))
        new_center = torch.Tensor([c - s / 2 for c, s in zip(p["center"], shape)])  # <- bug
        grid += new_center - mn
        return to_sample_grid(grid, shape)

    def apply_image(self, img, p):
        grid = self._grid(img.shape[1:], p)
        return grid_sample(img[None], grid[None], mode="bilinear", align_corners=False)[0]

    def apply_segmentation(self, seg, p):
        grid = self._grid(seg.shape[1:], p)
        result = torch.zeros((seg.shape[0], *self.patch_size), dtype=seg.dtype)  # <- bug
        for c in range(seg.shape[0]):
            labels = torch.from_numpy(np.unique(seg[c].numpy()))  # <- bug
            for u in labels:
                hit = grid_sample((seg[c] == u).float()[None, None], grid[None], align_corners=False)[0][0] >= 0.5
                result[c][hit] = u
        return result


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Conv3d(1, 2, 3, padding=1).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    aug = SpatialTransform(patch_size=(32, 32, 32))
    for _ in range(4):
        image = torch.rand(1, 48, 48, 48, device=device)
        label = (torch.rand(1, 48, 48, 48, device=device) > 0.7).long()
        p = aug.get_parameters(image)
        x, y = aug.apply_image(image, p), aug.apply_segmentation(label, p)
        loss = nn.functional.cross_entropy(net(x[None]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
