# devcheck bug corpus: DC101
# From: https://github.com/ndrplz/ConvLSTM_pytorch/pull/10
# A ConvLSTM cell's init_hidden returns zero states made on the CPU; the
# stacked ConvLSTM collects them for every layer and feeds them with the input
# on the GPU. The fix made them on the device of the cell's convolution.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ConvLSTMCell(nn.Module):
    def __init__(self, in_dim, hidden_dim, kernel):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.conv = nn.Conv2d(in_dim + hidden_dim, 4 * hidden_dim, kernel, padding=kernel // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = torch.split(self.conv(torch.cat([x, h], dim=1)), self.hidden_dim, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def init_hidden(self, batch, size):
        height, width = size
        return (torch.zeros(batch, self.hidden_dim, height, width),  # <- bug
                torch.zeros(batch, self.hidden_dim, height, width))  # <- bug


class ConvLSTM(nn.Module):
    def __init__(self, in_dim, hidden_dims, kernel):
        super().__init__()
        dims = [in_dim] + hidden_dims
        self.cells = nn.ModuleList(
            [ConvLSTMCell(dims[i], dims[i + 1], kernel) for i in range(len(hidden_dims))])

    def _init_hidden(self, batch, size):
        return [cell.init_hidden(batch, size) for cell in self.cells]

    def forward(self, frames):
        states = self._init_hidden(frames.size(0), frames.shape[-2:])
        x = frames[:, 0]
        for layer, cell in enumerate(self.cells):
            states[layer] = cell(x, states[layer])
            x = states[layer][0]
        return x
