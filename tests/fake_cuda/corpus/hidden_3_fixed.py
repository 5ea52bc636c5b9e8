# kind: hidden-state
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/20
# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/18
# fix: H = torch.zeros(X.shape[0], self.out_channels).to(X.device) (the maintainer redefined every hidden state so)
"""A diffusion-convolution GRU cell over a small road graph; when no hidden
state is passed, _set_hidden_state makes one with torch.zeros."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class GraphConvGRU(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.out_channels = out_channels
        self.conv_z = nn.Linear(in_channels + out_channels, out_channels)
        self.conv_r = nn.Linear(in_channels + out_channels, out_channels)
        self.conv_h = nn.Linear(in_channels + out_channels, out_channels)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels).to(X.device)
        return H

    def forward(self, X, A, H=None):
        H = self._set_hidden_state(X, H)
        XH = torch.cat([X, H], dim=1)
        Z = torch.sigmoid(A @ self.conv_z(XH))
        R = torch.sigmoid(A @ self.conv_r(XH))
        H_tilde = torch.tanh(A @ self.conv_h(torch.cat([X, H * R], dim=1)))
        return Z * H + (1 - Z) * H_tilde


nodes, features = 6, 3
A = torch.rand(nodes, nodes)
A = A / A.sum(1, keepdim=True)
series = torch.randn(5, nodes, features)
target = torch.randn(5, nodes, 1)

cell = GraphConvGRU(features, 8).to(device)
readout = nn.Linear(8, 1).to(device)
optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=0.01)
A = A.to(device)
for epoch in range(2):
    H, cost = None, 0
    for t in range(series.size(0)):
        H = cell(series[t].to(device), A, H)
        cost = cost + ((readout(H) - target[t].to(device)) ** 2).mean()
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
print("cost", round(cost.item(), 4))
