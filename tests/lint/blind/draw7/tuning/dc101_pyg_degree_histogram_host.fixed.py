# devcheck bug corpus: DC101
# From: https://github.com/pyg-team/pytorch_geometric/pull/7830
# Fixed as the pull request does it: the histogram starts on the device of the
# loader's first batch's edge_index, where the counts added to it are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F
from torch import Tensor
from torch_geometric.datasets import ZINC
from torch_geometric.loader import DataLoader
from torch_geometric.nn import PNAConv, global_add_pool
from torch_geometric.utils import degree


def get_degree_histogram(loader: DataLoader) -> Tensor:
    device = next(iter(loader)).edge_index.device  # <- fixed
    deg_histogram = torch.zeros(1, dtype=torch.long, device=device)  # <- fixed
    for data in loader:
        d = degree(data.edge_index[1], num_nodes=data.num_nodes, dtype=torch.long)
        counts = torch.bincount(d, minlength=deg_histogram.numel())
        if counts.numel() > deg_histogram.numel():
            counts[: deg_histogram.numel()] += deg_histogram
            deg_histogram = counts
        else:
            deg_histogram += counts
    return deg_histogram


class PNANet(torch.nn.Module):
    def __init__(self, deg: Tensor, hidden: int = 64):
        super().__init__()
        self.emb = torch.nn.Embedding(32, hidden)
        aggregators = ["mean", "min", "max", "std"]
        scalers = ["identity", "amplification", "attenuation"]
        self.conv1 = PNAConv(hidden, hidden, aggregators, scalers, deg)
        self.conv2 = PNAConv(hidden, hidden, aggregators, scalers, deg)
        self.head = torch.nn.Linear(hidden, 1)

    def forward(self, x, edge_index, batch):
        h = self.emb(x.squeeze(-1))
        h = F.relu(self.conv1(h, edge_index))
        h = F.relu(self.conv2(h, edge_index))
        return self.head(global_add_pool(h, batch)).squeeze(-1)


def main():
    device = torch.device("xpu" if torch.xpu.is_available() else "cpu")
    dataset = ZINC("data/ZINC", subset=True, split="train")
    graphs = [g.to(device) for g in dataset]
    loader = DataLoader(graphs, batch_size=128, shuffle=True)

    deg = get_degree_histogram(loader)
    model = PNANet(deg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(10):
        for data in loader:
            optimizer.zero_grad()
            out = model(data.x, data.edge_index, data.batch)
            loss = F.l1_loss(out, data.y)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
