# devcheck bug corpus: DC101
# From: https://github.com/torch-points3d/torch-points3d/issues/492
# The fix (the maintainer's, confirmed by the reporter) hands the predicted
# center to the box decoding with .cpu(), where its CPU-made corners are.
# Written for devcheck's tests after the thread; not the project's code.
import math

import numpy as np
import torch
import torch.nn as nn


def rotation_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def box_corners_from_param(box_size, heading_angle, center):
    R = rotation_z(float(heading_angle))
    l, w, h = [float(v) for v in box_size]
    unit = torch.tensor([[-1, 1, 1, -1, -1, 1, 1, -1], [-1, -1, 1, 1, -1, -1, 1, 1], [-1, -1, -1, -1, 1, 1, 1, 1]]) * 0.5  # <- fixed
    corners = R @ (unit * torch.tensor([[l], [w], [h]]))
    return (corners + center.view(3, 1)).T


class ScanNetBoxes:
    num_heading_bin = 12
    mean_size_arr = np.array([[0.8, 0.8, 0.9], [1.9, 1.0, 0.9], [0.6, 0.6, 0.8]], dtype=np.float32)

    def class2angle(self, cls, residual):
        return float(cls) * (2 * np.pi / self.num_heading_bin) + float(residual)

    def class2size(self, cls, residual):
        return self.mean_size_arr[int(cls)] + residual.detach().cpu().numpy()


class VoteNetHead(nn.Module):
    def __init__(self, feat=128, num_heading_bin=12, num_size=3):
        super().__init__()
        self.num_heading_bin, self.num_size = num_heading_bin, num_size
        self.out = nn.Conv1d(feat, 3 + num_heading_bin * 2 + num_size * 4, 1)

    def forward(self, features, seeds):
        x = self.out(features).transpose(1, 2)
        nh, ns = self.num_heading_bin, self.num_size
        center = seeds + x[:, :, 0:3]
        heading_scores, heading_res = x[:, :, 3:3 + nh], x[:, :, 3 + nh:3 + 2 * nh]
        size_scores = x[:, :, 3 + 2 * nh:3 + 2 * nh + ns]
        size_res = x[:, :, 3 + 2 * nh + ns:].reshape(x.shape[0], x.shape[1], ns, 3)
        return center, heading_scores, heading_res, size_scores, size_res


def get_boxes(outputs, dataset):
    center, heading_scores, heading_res, size_scores, size_res = outputs
    heading_cls = heading_scores.argmax(-1)
    size_cls = size_scores.argmax(-1)
    B, K = center.shape[:2]
    corners = torch.zeros((B, K, 8, 3))
    for i in range(B):
        for j in range(K):
            angle = dataset.class2angle(heading_cls[i, j], heading_res[i, j, heading_cls[i, j]])
            size = dataset.class2size(size_cls[i, j], size_res[i, j, size_cls[i, j]])
            corners[i, j] = box_corners_from_param(size, angle, center[i, j, :].cpu())  # <- fixed
    return corners


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    head = VoteNetHead().to(device)
    head.eval()
    with torch.no_grad():
        outputs = head(torch.randn(2, 128, 64, device=device), torch.randn(2, 64, 3, device=device))
    print(get_boxes(outputs, ScanNetBoxes()).shape)
