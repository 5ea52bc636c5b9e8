# kind: load-without-map-location
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/pytorch/pytorch/issues/15848
# fix: torch.load("model.pt", map_location=device) -- "You can use map_location to change device"
# prepare: _prepare_save_whole_model.py
"""Inference on GPU 1 of a model trained (and pickled whole) on GPU 0: the
inputs go to cuda:1, torch.load puts the parameters back on cuda:0."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 10), nn.Linear(10, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


if torch.cuda.device_count() > 1:
    device = torch.device("cuda:1")
else:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.load("model.pt", map_location=device, weights_only=False)
model.eval()
with torch.no_grad():
    batch = torch.linspace(-2, 2, 24).view(4, 6).to(device)
    print(model(batch).argmax(1).tolist())
