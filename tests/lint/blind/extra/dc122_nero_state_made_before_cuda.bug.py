# devcheck bug corpus: DC122
# From: https://github.com/jxbz/nero/issues/1
# The Nero optimizer makes its per-neuron state (a running average of squared
# gradient norms, a scale per parameter) in its constructor, from the
# parameters it is given. The training script built the optimizer on the CPU
# network and moved the network to the GPU afterwards: the first step mixed
# the CPU state with the CUDA gradients ("Expected all tensors to be on the
# same device, but found at least two devices, cuda:0 and cpu!"). The
# maintainer's answer: move the network before the optimizer is made.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.optim.optimizer import Optimizer


def neuron_norm(x):
    view = x.view(x.shape[0], -1) if x.dim() > 1 else x.view(-1, 1)
    return view.norm(dim=1).view(-1, *([1] * (x.dim() - 1))) if x.dim() > 1 else x.abs()


class Nero(Optimizer):
    def __init__(self, params, lr=0.01, beta=0.999):
        self.beta = beta
        super().__init__(params, dict(lr=lr))
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = 0
                state["exp_avg_sq"] = torch.zeros_like(neuron_norm(p))
                state["scale"] = neuron_norm(p).mean()

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                state["step"] += 1
                state["exp_avg_sq"] = self.beta * state["exp_avg_sq"] + (1 - self.beta) * neuron_norm(p.grad) ** 2
                p -= group["lr"] * state["scale"] * p.grad / (state["exp_avg_sq"].sqrt() + 1e-8)


def train(loader, epochs):
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = Nero(net.parameters(), lr=0.01)  # <- bug
    net = net.cuda()  # <- bug
    for _ in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = nn.functional.cross_entropy(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
