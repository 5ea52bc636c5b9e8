# devcheck bug corpus: DC101
# From: https://github.com/pyg-team/pytorch_geometric/issues/5199
# From: https://github.com/pyg-team/pytorch_geometric/pull/5202
# EquilibriumAggregation starts its inner optimisation from a zero output made
# by init_output() with torch.zeros and no device: with the GNN moved to the GPU
# the potential network concatenates CUDA node features with this CPU start
# point, and training fails when the layer is used as the readout.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List, Optional

import torch
from torch import Tensor
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv
from torch_geometric.nn.aggr import Aggregation
from torch_geometric.utils import scatter


class Potential(torch.nn.Module):
    def __init__(self, in_channels: int, hidden: List[int]):
        super().__init__()
        sizes = [in_channels] + hidden + [1]
        self.layers = torch.nn.ModuleList(
            [torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
        )

    def forward(self, x: Tensor, y: Tensor, index: Tensor) -> Tensor:
        h = torch.cat([x, y[index]], dim=1)
        for layer in self.layers[:-1]:
            h = torch.tanh(layer(h))
        h = self.layers[-1](h)
        return scatter(h, index, dim=0, reduce="mean").sum()


class EquilibriumAggregation(Aggregation):
    def __init__(self, in_channels: int, out_channels: int, hidden: List[int], grad_iter: int = 5):
        super().__init__()
        self.potential = Potential(in_channels + out_channels, hidden)
        self.lamb = torch.nn.Parameter(torch.tensor([0.1]))
        self.step = torch.nn.Parameter(torch.tensor([0.1]))
        self.output_dim = out_channels
        self.grad_iter = grad_iter

    def init_output(self, index: Tensor) -> Tensor:
        size = int(index.max().item() + 1)
        return torch.zeros(size, self.output_dim, requires_grad=True).float()  # <- bug

    def energy(self, x: Tensor, y: Tensor, index: Tensor) -> Tensor:
        reg = torch.nn.functional.softplus(self.lamb) * y.square().sum(dim=-1).mean()
        return self.potential(x, y, index) + reg

    def forward(self, x: Tensor, index: Optional[Tensor] = None, ptr=None, dim_size=None, dim: int = -2) -> Tensor:
        with torch.enable_grad():
            y = self.init_output(index)
            for _ in range(self.grad_iter):
                grad = torch.autograd.grad(self.energy(x, y, index), y, create_graph=True)[0]
                y = y - self.step * grad
        return y


class GraphClassifier(torch.nn.Module):
    def __init__(self, in_channels: int, hidden: int, num_classes: int):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.readout_aggr = EquilibriumAggregation(hidden, hidden, [256, 256])
        self.lin = torch.nn.Linear(hidden, num_classes)

    def forward(self, x, edge_index, batch):
        x = self.conv1(x, edge_index).relu()
        x = self.conv2(x, edge_index).relu()
        return self.lin(self.readout_aggr(x, index=batch))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = TUDataset("data/TUDataset", name="MUTAG")
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    model = GraphClassifier(dataset.num_features, 128, dataset.num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(50):
        for data in loader:
            data = data.to(device)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(data.x, data.edge_index, data.batch), data.y)
            loss.backward()
            optimizer.step()
        print(epoch, float(loss))


if __name__ == "__main__":
    main()
