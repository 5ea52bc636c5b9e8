# devcheck bug corpus: DC101
# From: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/pull/23
# From: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/commit/7283ade6299d317c73b3b922c4cbba222f4a93ca
# Fixed as the commit does it: the vectors of ones are moved to the device of
# the features x before they meet the adjacency matrix.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn.functional as F
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.utils import to_dense_adj
from torch_geometric_temporal.dataset import ChickenpoxDatasetLoader
from torch_geometric_temporal.signal import temporal_signal_split


class DConv(MessagePassing):
    def __init__(self, in_channels, out_channels, K, bias=True):
        super().__init__(aggr="add", flow="source_to_target")
        self.weight = torch.nn.Parameter(torch.empty(2, K, in_channels, out_channels))
        self.bias = torch.nn.Parameter(torch.zeros(out_channels)) if bias else None
        stdv = math.sqrt(6.0 / (in_channels + out_channels))
        self.weight.data.uniform_(-stdv, stdv)

    def forward(self, x, edge_index, edge_weight):
        adj_mat = to_dense_adj(edge_index, edge_attr=edge_weight)
        adj_mat = adj_mat.reshape(adj_mat.size(1), adj_mat.size(2))
        deg_out = torch.matmul(adj_mat, torch.ones(size=(adj_mat.size(0), 1)).to(x.device)).flatten()  # <- fixed
        deg_in = torch.matmul(torch.ones(size=(1, adj_mat.size(0))).to(x.device), adj_mat).flatten()  # <- fixed
        row, col = edge_index
        norm_out = torch.reciprocal(deg_out)[row]
        norm_in = torch.reciprocal(deg_in)[row]

        out = torch.matmul(x, self.weight[0][0]) + torch.matmul(x, self.weight[1][0])
        if self.weight.size(1) > 1:
            tx_o = self.propagate(edge_index, x=x, norm=norm_out, size=None)
            tx_i = self.propagate(edge_index, x=x, norm=norm_in, size=None)
            out = out + torch.matmul(tx_o, self.weight[0][1]) + torch.matmul(tx_i, self.weight[1][1])
        if self.bias is not None:
            out = out + self.bias
        return out

    def message(self, x_j, norm):
        return norm.view(-1, 1) * x_j


class DCRNNCell(torch.nn.Module):
    def __init__(self, in_channels, out_channels, K):
        super().__init__()
        self.out_channels = out_channels
        self.conv_z = DConv(in_channels + out_channels, out_channels, K)
        self.conv_r = DConv(in_channels + out_channels, out_channels, K)
        self.conv_h = DConv(in_channels + out_channels, out_channels, K)

    def forward(self, x, edge_index, edge_weight, h=None):
        if h is None:
            h = torch.zeros(x.shape[0], self.out_channels, device=x.device)
        xh = torch.cat([x, h], dim=1)
        z = torch.sigmoid(self.conv_z(xh, edge_index, edge_weight))
        r = torch.sigmoid(self.conv_r(xh, edge_index, edge_weight))
        h_tilde = torch.tanh(self.conv_h(torch.cat([x, h * r], dim=1), edge_index, edge_weight))
        return z * h + (1 - z) * h_tilde


class RecurrentGCN(torch.nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = DCRNNCell(node_features, 32, 2)
        self.linear = torch.nn.Linear(32, 1)

    def forward(self, x, edge_index, edge_weight):
        h = self.recurrent(x, edge_index, edge_weight)
        return self.linear(F.relu(h))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = ChickenpoxDatasetLoader().get_dataset(lags=4)
    train_dataset, test_dataset = temporal_signal_split(dataset, train_ratio=0.8)
    model = RecurrentGCN(node_features=4).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(50):
        for snapshot in train_dataset:
            snapshot = snapshot.to(device)
            y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
            cost = torch.mean((y_hat.squeeze() - snapshot.y) ** 2)
            cost.backward()
            optimizer.step()
            optimizer.zero_grad()
