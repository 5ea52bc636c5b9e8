# devcheck bug corpus: DC104
# From: https://github.com/google-research/big_transfer/issues/73
# BiT fine-tuning chose "cuda:1" as its device, wrapped the model in
# torch.nn.DataParallel (device_ids defaulting to every GPU from 0) and moved it
# to that device: "module must have its parameters and buffers on device cuda:0
# (device_ids[0]) but found one of them on device: cuda:1".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def main(loader):
    device = torch.device("cuda:1")
    model = nn.Sequential(nn.Linear(128, 10))
    model = torch.nn.DataParallel(model, device_ids=[1])  # <- fixed
    model = model.to(device)
    optim = torch.optim.SGD(model.parameters(), lr=0.003)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x), y)
        optim.zero_grad()
        loss.backward()
        optim.step()
