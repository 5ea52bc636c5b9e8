# devcheck bug corpus: DC101
# From: https://github.com/pyg-team/pytorch_geometric/pull/7830
# PNA's degree histogram is accumulated from the training loader's graphs;
# the running histogram starts as torch.zeros on the CPU, so when the graphs
# are already on the accelerator (here through a ToDevice transform) the
# bincounts on the device are added to it and the call fails.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F
import torch_geometric.transforms as T
from torch_geometric.datasets import ZINC
from torch_geometric.loader import DataLoader
from torch_geometric.nn import PNAConv, global_add_pool
from torch_geometric.utils import degree


def get_degree_histogram(loader):
    deg_histogram = torch.zeros(1, dtype=torch.long)  # <- bug
    for data in loader:
        d = degree(data.edge_index[1], num_nodes=data.num_nodes, dtype=torch.long)
        d_bincount = torch.bincount(d, minlength=deg_histogram.numel())
        if d_bincount.size(0) > deg_histogram.size(0):
            d_bincount[: deg_histogram.size(0)] += deg_histogram
            deg_histogram = d_bincount
        else:
            deg_histogram += d_bincount
    return deg_histogram


class PNANet(torch.nn.Module):
    def __init__(self, deg, hidden=64):
        super().__init__()
        self.embed = torch.nn.Embedding(28, hidden)
        aggregators = ["mean", "min", "max", "std"]
        scalers = ["identity", "amplification", "attenuation"]
        self.convs = torch.nn.ModuleList(
            [PNAConv(hidden, hidden, aggregators, scalers, deg, towers=4) for _ in range(3)]
        )
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, x, edge_index, batch):
        h = self.embed(x.squeeze(-1))
        for conv in self.convs:
            h = F.relu(conv(h, edge_index))
        return self.out(global_add_pool(h, batch))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_dataset = ZINC("data/ZINC", subset=True, split="train", transform=T.ToDevice(device))
    train_loader = DataLoader(train_dataset, batch_size=128, shuffle=True)
    deg = get_degree_histogram(train_loader)
    model = PNANet(deg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        for data in train_loader:
            optimizer.zero_grad()
            out = model(data.x, data.edge_index, data.batch)
            loss = (out.squeeze() - data.y).abs().mean()
            loss.backward()
            optimizer.step()
