# devcheck bug corpus: DC111
# From: https://github.com/tksmatsubara/symplectic-adjoint-method/issues/2
# From: https://github.com/tksmatsubara/symplectic-adjoint-method/commit/d40652c37a37cf2748af2603d58c2265aff6945f
# A neural ODE on a vorticity/temperature field is trained on the GPU with
# the symplectic-adjoint solver. The solver's _PerturbFunc keeps +inf and -inf
# as tensors in class attributes of the module, made on the CPU when the
# module is defined, and passes them to torch.nextafter with the CUDA time of
# the step: a device mismatch on newer PyTorch.
# Written for devcheck's tests after the thread; not the project's code.
import math
from enum import Enum

import torch
import torch.nn as nn


class Perturb(Enum):
    NONE = 0
    PREV = 1
    NEXT = 2


class _PerturbFunc(nn.Module):
    _inf = torch.tensor(math.inf)  # <- bug
    _neginf = torch.tensor(-math.inf)  # <- bug

    def __init__(self, base_func):
        super().__init__()
        self.base_func = base_func

    def forward(self, t, y, *, perturb=Perturb.NONE):
        t = t.to(y.dtype)
        if perturb is Perturb.NEXT:
            t = torch.nextafter(t, self._inf)  # <- bug
        elif perturb is Perturb.PREV:
            t = torch.nextafter(t, self._neginf)  # <- bug
        return self.base_func(t, y)


def odeint_symplectic_adjoint(func, y0, t, n_sub=4):
    func = _PerturbFunc(func)
    out = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        h = (t1 - t0) / n_sub
        for i in range(n_sub):
            ts = t0 + i * h
            k1 = func(ts, y, perturb=Perturb.NEXT if i == 0 else Perturb.NONE)
            k2 = func(ts + h / 2, y + h * k1 / 2)
            k3 = func(ts + h / 2, y + h * k2 / 2)
            k4 = func(ts + h, y + h * k3, perturb=Perturb.PREV if i == n_sub - 1 else Perturb.NONE)
            y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        out.append(y)
    return torch.stack(out)


class FieldODE(nn.Module):
    def __init__(self, channels=2, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, hidden, 3, padding=1, padding_mode="circular"), nn.Tanh(),
            nn.Conv2d(hidden, channels, 3, padding=1, padding_mode="circular"),
        )

    def forward(self, t, y):
        return self.net(y)


def train_one_epoch(func, optimizer, fields, sampling_time):
    time = torch.tensor([0.0, sampling_time]).cuda()
    for w_and_T_0, w_and_T_out in fields:
        w_and_T_0, w_and_T_out = w_and_T_0.cuda(), w_and_T_out.cuda()
        w_and_T_pred = odeint_symplectic_adjoint(func, w_and_T_0, time).cuda()
        loss = torch.mean((w_and_T_pred[-1] - w_and_T_out) ** 2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main(numpts=32, epochs=5):
    func = FieldODE().cuda()
    optimizer = torch.optim.Adam(func.parameters(), lr=1e-3)
    fields = [(torch.randn(1, 2, numpts, numpts), torch.randn(1, 2, numpts, numpts)) for _ in range(8)]
    for epoch in range(epochs):
        print(epoch, train_one_epoch(func, optimizer, fields, sampling_time=0.1))


if __name__ == "__main__":
    main()
