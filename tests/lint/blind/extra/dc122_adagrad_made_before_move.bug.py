# devcheck bug corpus: DC122
# From: https://github.com/pytorch/pytorch/issues/7321
# A linear layer's Adagrad optimizer was made while the layer was on the
# CPU, and the layer was moved to the GPU afterwards: Adagrad makes its state
# (the running sum of squared gradients) for each parameter when it is
# constructed, on the parameter's device then, the CPU, and the first
# `step()` mixed it with the CUDA gradients. Adam, whose state is made at the
# first step, worked. The answer in the thread (and the optimizer docs): move
# the model first, then make the optimizer.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn, optim

device = torch.device("cuda:0")

x = torch.randn(10, 2).to(device)
linear = nn.Linear(2, 4)
o = optim.Adagrad(linear.parameters())  # <- bug
linear.to(device)  # <- bug

linear(x).mean().backward()
o.step()
