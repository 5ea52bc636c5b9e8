# devcheck bug corpus: DC117
# From: https://github.com/menzelab/implicit-shape-reconstruction/issues/2
# Parallel training saved the wrapped network's state dict in the checkpoint
# as net_state; eval.py, building the plain network, failed to load it with
# missing and unexpected keys ("module." prefixes).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def train(net, loader, n_gpus, path):
    if n_gpus > 1:
        net = nn.DataParallel(net)
    net = net.cuda()
    optimizer = torch.optim.Adam(net.parameters())
    for x, y in loader:
        loss = (net(x.cuda()) - y.cuda()).abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save({"net_state": (net.module if isinstance(net, nn.DataParallel) else net).state_dict()}, path)  # <- fixed
