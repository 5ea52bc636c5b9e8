# devcheck bug corpus: DC122
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/19225
# Resuming with Lightning Fabric: the script built the model and its AdamW
# optimizer on the CPU, loaded the checkpoint's model and optimizer states
# into them, and only then called `fabric.setup(model, optimizer)`, which
# moves the model to the GPU. Loading had put the optimizer's state (Adam's
# moments) where the parameters were then, on the CPU, and setup does not
# move it: after setup the state was still on the CPU. The thread's answer:
# load the optimizer's state after `fabric.setup`, which casts it to where the
# parameters are.
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
    optimizer.load_state_dict(checkpoint["optimizer"])  # <- bug
    fabric = Fabric(accelerator="cuda", devices=1)
    fabric.launch()
    model, optimizer = fabric.setup(model, optimizer)  # <- bug
    for x, y in loader:
        x, y = x.to(fabric.device), y.to(fabric.device)
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        fabric.backward(loss)
        optimizer.step()
