# devcheck bug corpus: DC122
# From: https://github.com/jxbz/nero/issues/1
# Fixed: the network is moved to the GPU before the optimizer is made, so the
# state it makes from the parameters is on the GPU.
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
    net = net.cuda()  # <- fixed
    optimizer = Nero(net.parameters(), lr=0.01)  # <- fixed
    for _ in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            loss = nn.functional.cross_entropy(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
