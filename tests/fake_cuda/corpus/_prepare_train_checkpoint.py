"""Prepare step for optimizer_1: an interrupted training run that saves the
model and the SGD-with-momentum optimizer state to checkpoint.pth.tar."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
for epoch in range(2):
    loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
torch.save({"epoch": 2, "state_dict": model.state_dict(), "optimizer": optimizer.state_dict()},
           "checkpoint.pth.tar")
