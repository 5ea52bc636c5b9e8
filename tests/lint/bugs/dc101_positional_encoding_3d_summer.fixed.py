# devcheck bug corpus: DC101
# From: https://github.com/tatp22/multidim-positional-encoding/issues/33
# From: https://github.com/tatp22/multidim-positional-encoding/pull/41
# A 3-D positional encoding made its position grids on the CPU in forward, so
# the encoding summed to a patch embedding on cuda:0 was on another device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class PositionalEncoding3D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.channels = channels
        inv_freq = 1.0 / (10000 ** (torch.arange(0, channels, 2).float() / channels))
        self.register_buffer("inv_freq", inv_freq)

    def forward(self, tensor):
        batch, x, y, z, _ = tensor.shape
        pos_x = torch.arange(x, device=tensor.device).float()  # <- fixed
        pos_y = torch.arange(y, device=tensor.device).float()  # <- fixed
        pos_z = torch.arange(z, device=tensor.device).float()  # <- fixed
        sin_x = torch.einsum("i,j->ij", pos_x, self.inv_freq)
        sin_y = torch.einsum("i,j->ij", pos_y, self.inv_freq)
        sin_z = torch.einsum("i,j->ij", pos_z, self.inv_freq)
        emb = sin_x[:, None, None, :] + sin_y[None, :, None, :] + sin_z[None, None, :, :]
        return emb[None].repeat(batch, 1, 1, 1, 1)


class Summer(nn.Module):
    def __init__(self, penc):
        super().__init__()
        self.penc = penc

    def forward(self, tensor):
        return tensor + self.penc(tensor)
