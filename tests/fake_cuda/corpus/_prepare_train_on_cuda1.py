"""Prepare step for load_1: the training run of a multi-GPU server, on its
second GPU when there is one, saving the state_dict to model.pth."""
import torch
from torch import nn

torch.manual_seed(0)
if torch.cuda.device_count() > 1:
    device = torch.device("cuda:1")
else:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
torch.save(model.state_dict(), "model.pth")
