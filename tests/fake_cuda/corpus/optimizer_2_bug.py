# kind: optimizer-state
# source: https://github.com/lanl/hippynn/pull/15
# fix: build the optimizer after the model is on its device (or reload its state dict after the transfer)
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""A training setup that creates the optimizer with the model, then calls
set_devices() to move the model: Adagrad made its sum state in __init__."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SetupParams:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)  # BUG:stray

    def set_devices(self, device):
        self.model.to(device)


energy_model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
setup = SetupParams(energy_model)
setup.set_devices(device)
positions = torch.randn(24, 3)
energies = positions.pow(2).sum(1, keepdim=True)
for epoch in range(3):
    loss = ((setup.model(positions.to(device)) - energies.to(device)) ** 2).mean()
    setup.optimizer.zero_grad()
    loss.backward()
    setup.optimizer.step()  # BUG:op
print("loss", round(loss.item(), 4))
