# kind: loss-weight
# source: https://github.com/dmlc/dgl/issues/1840
# fix: move the loss function (its pos_weight buffer) to the device: loss_fcn.cuda() when CUDA is available
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""Multi-label node classification (PPI style): BCEWithLogitsLoss with a
pos_weight from the label frequencies; the model goes to the GPU, the loss not."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

n_nodes, n_feats, n_labels = 30, 10, 5
features = torch.randn(n_nodes, n_feats)
adjacency = (torch.rand(n_nodes, n_nodes) < 0.2).float()
adjacency = (adjacency + adjacency.t()).clamp(max=1) + torch.eye(n_nodes)
adjacency = adjacency / adjacency.sum(1, keepdim=True)
targets = (torch.rand(n_nodes, n_labels) < 0.2).float()


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(n_feats, 16), nn.Linear(16, n_labels)

    def forward(self, a, x):
        return a @ self.l2(torch.relu(a @ self.l1(x)))


positives = targets.sum(0)
loss_fcn = nn.BCEWithLogitsLoss(pos_weight=(n_nodes - positives) / positives.clamp(min=1))  # BUG:stray
model = GCN().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
a, x, y = adjacency.to(device), features.to(device), targets.to(device)
for epoch in range(3):
    logits = model(a, x)
    loss = loss_fcn(logits, y)  # BUG:op
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
