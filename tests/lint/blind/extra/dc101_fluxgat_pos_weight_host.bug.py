# devcheck bug corpus: DC101
# From: https://github.com/kierensharma/FluxGAT/pull/4
# Training a graph attention network for a binary node task, the positive
# class weight of the BCE-with-logits loss was made with torch.tensor and no
# device, on the CPU, while the model and the graph were on the GPU; the loss
# called on the model's output mixed the two. The fix makes pos_weight on the
# model's device.
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
    pos_weight = torch.tensor([num_neg / max(num_pos, 1)])  # <- bug
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = criterion(model(x, adj), y.float())
        loss.backward()
        optimizer.step()
    return model
