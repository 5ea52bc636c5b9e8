# devcheck bug corpus: DC122
# From: https://github.com/pytorch/pytorch/issues/8741
# A script made its network and SGD optimizer, loaded a checkpoint onto the
# CPU, loaded both state dicts and only then moved the network to CUDA: the
# optimizer's state had been cast to the parameters' device at load time, the
# CPU, and stayed there; the next step mixed CPU and CUDA tensors. The answer
# in the thread: move the network first, then make and load the optimizer.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

network = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
optim = torch.optim.SGD(network.parameters(), lr=0.01, momentum=0.9)
state = torch.load("checkpoint.pt", lambda storage, loc: storage)
network.load_state_dict(state["network"])
optim.load_state_dict(state["optim"])  # <- bug
network.to(torch.device("cuda"))  # <- bug
