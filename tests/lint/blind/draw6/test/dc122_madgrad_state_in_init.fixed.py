# devcheck bug corpus: DC122
# From: https://github.com/facebookresearch/madgrad/issues/4
# From: https://github.com/facebookresearch/madgrad/commit/71da2a48e738b76a29d3e33c3cadb4775cdf9e91
# The fix (commit 71da2a4, "Inline initialization of optimizer state") makes
# the state lazily in step(), from the parameters where they are at the first
# step, so building the optimizer before the move no longer matters.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn


class MADGRAD(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-2, momentum=0.9, weight_decay=0, eps=1e-6):
        if momentum < 0 or momentum >= 1:
            raise ValueError(f"Momentum {momentum} must be in the range [0,1]")
        defaults = dict(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, k=0)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            eps, k, decay, momentum = group["eps"], group["k"], group["weight_decay"], group["momentum"]
            lr = group["lr"] + eps
            ck = 1 - momentum
            lamb = lr * math.pow(k + 1, 0.5)
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if "grad_sum_sq" not in state:  # <- fixed
                    state["grad_sum_sq"] = torch.zeros_like(p.data).detach()  # <- fixed
                    state["s"] = torch.zeros_like(p.data).detach()  # <- fixed
                    if momentum != 0:  # <- fixed
                        state["x0"] = torch.clone(p.data).detach()  # <- fixed
                grad_sum_sq, s = state["grad_sum_sq"], state["s"]
                if decay != 0:
                    grad = grad.add(p, alpha=decay)
                if momentum == 0:
                    x0 = p.addcdiv(s, grad_sum_sq.pow(1 / 3).add_(eps), value=1)
                else:
                    x0 = state["x0"]
                grad_sum_sq.addcmul_(grad, grad, value=lamb)
                rms = grad_sum_sq.pow(1 / 3).add_(eps)
                s.add_(grad, alpha=lamb)
                if momentum == 0:
                    p.copy_(x0.addcdiv(s, rms, value=-1))
                else:
                    z = x0.addcdiv(s, rms, value=-1)
                    p.mul_(1 - ck).add_(z, alpha=ck)
            group["k"] = group["k"] + 1
        return loss


def fit(train_loader, epochs=5):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = MADGRAD(model.parameters(), lr=1e-3)  # <- fixed
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            opt.zero_grad()
    return model
