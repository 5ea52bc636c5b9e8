"""Prepare step for prefix_2: a training run on one device (no DataParallel)
that saves its state_dict to checkpoint.pth in the current folder."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 3)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(8, 1, 6, 6), torch.randint(0, 3, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
torch.save(model.state_dict(), "checkpoint.pth")
