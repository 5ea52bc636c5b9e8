# devcheck bug corpus: DC122
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/19225
# Fixed: the optimizer's state is loaded after `fabric.setup` has moved the
# model, so it is cast to where the parameters are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from lightning import Fabric
from torch import nn
from torch.optim import AdamW


def main(path, loader):
    model = nn.Linear(10, 1)
    optimizer = AdamW(model.parameters())
    checkpoint = torch.load(path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    fabric = Fabric(accelerator="cuda", devices=1)
    fabric.launch()
    model, optimizer = fabric.setup(model, optimizer)  # <- fixed
    optimizer.load_state_dict(checkpoint["optimizer"])  # <- fixed
    for x, y in loader:
        x, y = x.to(fabric.device), y.to(fabric.device)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        fabric.backward(loss)
        optimizer.step()
