# devcheck bug corpus: DC122
# From: https://github.com/lanl/hippynn/pull/15
# Fixed: after the model is transferred, the optimizer's state dictionary is
# loaded again, which puts its state on the parameters' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, x):
        return self.layers(x)


def set_devices(model, loss, device):
    model.to(device)
    loss.to(device)
    return model, loss


def setup_training(device):
    model = Network()
    loss = nn.MSELoss()
    optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-3)  # <- fixed
    model, loss = set_devices(model, loss, device)  # <- fixed
    optimizer.load_state_dict(optimizer.state_dict())  # <- fixed
    return model, loss, optimizer


def train(loader, device):
    model, loss_fn, optimizer = setup_training(device)
    for x, y in loader:
        loss = loss_fn(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
