# devcheck bug corpus: DC122
# From: https://github.com/pytorch/pytorch/issues/8741
# Fixed: the network is moved before the optimizer is made and its state
# loaded.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

network = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
network.to(torch.device("cuda"))  # <- fixed
optim = torch.optim.SGD(network.parameters(), lr=0.01, momentum=0.9)
state = torch.load("checkpoint.pt", lambda storage, loc: storage)
network.load_state_dict(state["network"])
optim.load_state_dict(state["optim"])  # <- fixed
