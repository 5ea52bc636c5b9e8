# devcheck bug corpus: DC122
# From: https://github.com/pytorch/pytorch/issues/7321
# Fixed: the layer is moved to the device before its Adagrad optimizer is
# made.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn, optim

device = torch.device("cuda:0")

x = torch.randn(10, 2).to(device)
linear = nn.Linear(2, 4)
linear.to(device)  # <- fixed
o = optim.Adagrad(linear.parameters())  # <- fixed

linear(x).mean().backward()
o.step()
