# devcheck bug corpus: DC122
# From: https://github.com/lessw2020/Ranger-Deep-Learning-Optimizer/issues/1
# The Ranger optimizer (RAdam with Lookahead) copies every parameter into its
# "slow weights" when it is constructed. A user made it before moving the
# model to CUDA: the slow weights were copies of the CPU parameters and stayed
# on the CPU, and the Lookahead update mixed them with the CUDA parameters.
# The answer in the thread: make the optimizer after moving the model.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.optim import Optimizer


class Ranger(Optimizer):
    def __init__(self, params, lr=1e-3, alpha=0.5, k=6):
        super().__init__(params, dict(lr=lr, alpha=alpha, k=k, step_counter=0))
        self.slow_weights = [[p.clone().detach() for p in group["params"]] for group in self.param_groups]

    def step(self, closure=None):
        for group, slow in zip(self.param_groups, self.slow_weights):
            group["step_counter"] += 1
            for p, q in zip(group["params"], slow):
                if p.grad is None:
                    continue
                p.data.add_(p.grad, alpha=-group["lr"])
                if group["step_counter"] % group["k"] == 0:
                    q.add_(p.data - q, alpha=group["alpha"])
                    p.data.copy_(q)


def train(loader):
    model = nn.Sequential(nn.Linear(100, 50), nn.ReLU(), nn.Linear(50, 2))
    optimizer = Ranger(model.parameters())  # <- bug
    model.cuda()  # <- bug
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
