# kind: sync-per-step
# source: https://github.com/dmlc/dgl/issues/5302
# fix: total_loss += loss.detach() -- accumulate on the device, read the total once per epoch
# expect-finding: sync
# sanitizer: sync
"""Minibatch training of a node classifier that keeps the running epoch loss
as a Python float, adding loss.item() after every step."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

features = torch.randn(120, 8)
labels = (features[:, 0] > 0).long()
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(2):
    total_loss = 0
    for start in range(0, 120, 8):
        x = features[start:start + 8].to(device)
        y = labels[start:start + 8].to(device)
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total_loss += loss.item()  # BUG:sync
    print("epoch", epoch, "loss", round(float(total_loss) / 15, 4))
