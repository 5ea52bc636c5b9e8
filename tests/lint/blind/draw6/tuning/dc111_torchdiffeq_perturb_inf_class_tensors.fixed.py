# devcheck bug corpus: DC111
# From: https://github.com/rtqichen/torchdiffeq/issues/168
# From: https://github.com/rtqichen/torchdiffeq/commit/25fd9f2e98e13148a5342df4de3aa99f836699fa
# Fixed as the commit did: the class-level infinity tensors are gone and
# nextafter steps towards t + 1 or t - 1, which are made from the time
# itself and so are on its device.
# Written for devcheck's tests after the thread; not the project's code.
from enum import Enum

import torch
import torch.nn as nn


class Perturb(Enum):
    NONE = 0
    PREV = 1
    NEXT = 2


class _PerturbFunc(nn.Module):
    def __init__(self, base_func):
        super().__init__()
        self.base_func = base_func

    def forward(self, t, y, *, perturb=Perturb.NONE):
        t = t.to(y.dtype)
        with torch.no_grad():
            if perturb is Perturb.NEXT:
                t = torch.nextafter(t, t + 1)  # <- fixed
            elif perturb is Perturb.PREV:
                t = torch.nextafter(t, t - 1)  # <- fixed
        return self.base_func(t, y)


def odeint(func, y0, t):
    func = _PerturbFunc(func)
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        dt = t1 - t0
        k1 = func(t0, y, perturb=Perturb.NEXT)
        k2 = func(t0 + dt / 2, y + dt * k1 / 2)
        k3 = func(t0 + dt / 2, y + dt * k2 / 2)
        k4 = func(t1, y + dt * k3, perturb=Perturb.PREV)
        y = y + dt * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        ys.append(y)
    return torch.stack(ys)


device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
true_y0 = torch.tensor([[2.0, 0.0]]).to(device)
t = torch.linspace(0.0, 25.0, 1000).to(device)
true_A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]]).to(device)


class Lambda(nn.Module):
    def forward(self, t, y):
        return torch.mm(y ** 3, true_A)


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))

    def forward(self, t, y):
        return self.net(y ** 3)


if __name__ == "__main__":
    with torch.no_grad():
        true_y = odeint(Lambda(), true_y0, t)
    func = ODEFunc().to(device)
    optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-3)
    for itr in range(1, 101):
        s = torch.randint(0, 990, (20,), device=device)
        batch_y0, batch_t = true_y[s], t[:10]
        batch_y = torch.stack([true_y[s + i] for i in range(10)], dim=0)
        pred_y = odeint(func, batch_y0, batch_t)
        loss = torch.mean(torch.abs(pred_y - batch_y))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item())
