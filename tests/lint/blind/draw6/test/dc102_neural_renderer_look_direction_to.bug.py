# devcheck bug corpus: DC102
# From: https://github.com/daniilidis-group/neural_renderer/pull/52
# look() moves a tensor `direction` to the vertices' device with a bare
# direction.to(device): Tensor.to is not in-place, the moved copy is dropped
# and the CPU direction meets the CUDA axes and vertices.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def look(vertices, eye, direction=[0, 1, 0], up=None):
    """'Look' transformation of vertices [bs, nv, 3]."""
    if vertices.ndimension() != 3:
        raise ValueError("vertices Tensor should have 3 dimensions")
    device = vertices.device

    if isinstance(direction, (list, tuple)):
        direction = torch.tensor(direction, dtype=torch.float32, device=device)
    elif isinstance(direction, np.ndarray):
        direction = torch.from_numpy(direction).to(device)
    elif torch.is_tensor(direction):
        direction.to(device)  # <- bug

    if isinstance(eye, (list, tuple)):
        eye = torch.tensor(eye, dtype=torch.float32, device=device)
    elif isinstance(eye, np.ndarray):
        eye = torch.from_numpy(eye).to(device)
    elif torch.is_tensor(eye):
        eye = eye.to(device)

    if up is None:
        up = torch.cuda.FloatTensor([0, 1, 0])
    if eye.ndimension() == 1:
        eye = eye[None, :]
    if direction.ndimension() == 1:
        direction = direction[None, :]
    if up.ndimension() == 1:
        up = up[None, :]

    z_axis = F.normalize(direction, eps=1e-5)
    x_axis = F.normalize(torch.cross(up, z_axis, dim=-1), eps=1e-5)
    y_axis = F.normalize(torch.cross(z_axis, x_axis, dim=-1), eps=1e-5)
    r = torch.cat((x_axis[:, None, :], y_axis[:, None, :], z_axis[:, None, :]), dim=1)

    if vertices.shape != eye.shape:
        eye = eye[:, None, :]
    vertices = vertices - eye
    return torch.matmul(vertices, r.transpose(1, 2))


class LookCamera(nn.Module):
    def __init__(self, eye, direction):
        super().__init__()
        self.eye = eye
        self.direction = direction

    def forward(self, vertices):
        return look(vertices, self.eye, self.direction)


if __name__ == "__main__":
    vertices = torch.rand(1, 642, 3).cuda()
    camera = LookCamera([0.0, 0.0, -2.7], torch.tensor([0.0, 0.0, 1.0]))
    print(camera(vertices).shape)
