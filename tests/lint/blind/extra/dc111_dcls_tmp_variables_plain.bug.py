# devcheck bug corpus: DC111
# From: https://github.com/K-H-Ismail/Dilated-Convolution-with-Learnable-Spacings-PyTorch/pull/8
# A kernel-construction module set its index grid and its limits as plain
# tensor attributes in a helper method that __init__ calls: model.to("cuda")
# left them on the CPU, and the forward pass added them to the positions, a
# parameter on the GPU: "Expected all tensors to be on the same device". The
# maintainer asked for register_buffer there, as in the module's other
# variants.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ConstructKernel2d(nn.Module):
    def __init__(self, out_channels, in_channels, kernel_count, dilated_kernel_size):
        super().__init__()
        self.out_channels = out_channels
        self.in_channels = in_channels
        self.kernel_count = kernel_count
        self.dilated_kernel_size = dilated_kernel_size
        self.__init_tmp_variables__()

    def __init_tmp_variables__(self):
        rows = torch.arange(0, self.dilated_kernel_size[0])
        cols = torch.arange(0, self.dilated_kernel_size[1])
        cols = cols.expand(self.dilated_kernel_size[0], -1)
        rows = rows.expand(self.dilated_kernel_size[1], -1).t()
        self.IDX = torch.cat((cols.unsqueeze(0), rows.unsqueeze(0)), 0)  # <- bug
        lim = torch.tensor(self.dilated_kernel_size)
        self.lim = lim.expand(self.kernel_count, -1).t()  # <- bug

    def forward(self, weight, positions, sigma):
        positions = positions + self.lim // 2
        sigma = sigma.abs() + 0.27
        grid = self.IDX.unsqueeze(-1).float()
        kernel = torch.exp(-0.5 * ((grid - positions.view(2, 1, 1, -1)) / sigma) ** 2)
        return (kernel.prod(0) * weight.view(1, 1, -1)).sum(-1)


class Dcls2d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_count, dilated_kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(kernel_count))
        self.P = nn.Parameter(torch.rand(2, kernel_count))
        self.SIG = nn.Parameter(torch.ones(2, kernel_count))
        self.DCK = ConstructKernel2d(out_channels, in_channels, kernel_count, dilated_kernel_size)

    def forward(self, x):
        kernel = self.DCK(self.weight, self.P, self.SIG)
        return nn.functional.conv2d(x, kernel.expand(x.size(1), x.size(1), -1, -1))
