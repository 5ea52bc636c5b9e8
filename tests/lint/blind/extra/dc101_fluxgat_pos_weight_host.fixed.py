# devcheck bug corpus: DC101
# From: https://github.com/kierensharma/FluxGAT/pull/4
# Fixed: pos_weight is made on the device the model and the data are on.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class FluxGAT(nn.Module):
    def __init__(self, in_channels, hidden):
        super().__init__()
        self.lin1 = nn.Linear(in_channels, hidden)
        self.lin2 = nn.Linear(hidden, 1)

    def forward(self, x, adj):
        h = torch.relu(adj @ self.lin1(x))
        return self.lin2(adj @ h).squeeze(-1)


def train(x, adj, y, epochs, device):
    model = FluxGAT(x.size(1), 64).to(device)
    x, adj, y = x.to(device), adj.to(device), y.to(device)
    num_pos = int(y.sum())
    num_neg = y.numel() - num_pos
    pos_weight = torch.tensor([num_neg / max(num_pos, 1)], device=device)  # <- fixed
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = criterion(model(x, adj), y.float())
        loss.backward()
        optimizer.step()
    return model
