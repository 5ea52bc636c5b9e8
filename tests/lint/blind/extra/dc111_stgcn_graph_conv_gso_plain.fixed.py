# devcheck bug corpus: DC111
# From: https://github.com/GestaltCogTeam/BasicTS/pull/53
# Fixed (here: a registered buffer, which moves with the model; the PR moves
# it to the model's device where it is used).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, c_in, c_out, gso):
        super().__init__()
        self.register_buffer("gso", gso)  # <- fixed
        self.weight = nn.Parameter(torch.empty(c_in, c_out))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        first_mul = torch.einsum("hi,btij->bthj", self.gso, x)
        return torch.matmul(first_mul, self.weight).permute(0, 3, 1, 2)


class STGCN(nn.Module):
    def __init__(self, c_in, c_out, gso):
        super().__init__()
        self.graph_conv = GraphConv(c_in, c_out, gso)
        self.output = nn.Conv2d(c_out, 1, 1)

    def forward(self, x):
        return self.output(torch.relu(self.graph_conv(x)))


def build_model(adj_path, c_in, c_out):
    adj = np.load(adj_path).astype(np.float32)
    degree = np.diag(adj.sum(axis=1) ** -0.5)
    gso = torch.from_numpy(np.eye(adj.shape[0], dtype=np.float32) - degree @ adj @ degree)
    return STGCN(c_in, c_out, gso)
