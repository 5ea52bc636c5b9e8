# devcheck bug corpus: DC112
# From: https://github.com/rtqichen/torchdiffeq/pull/16
# Fixed as the merged PR did: the error ratio and the exponent are converted
# with .to(last_step), which takes both the dtype and the device of last_step,
# so they stay on the GPU the solver runs on.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=0)
parser.add_argument("--tol", type=float, default=1e-3)
args = parser.parse_args()


def _optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=2):
    if mean_error_ratio == 0:
        return last_step * ifactor
    if mean_error_ratio < 1:
        dfactor = torch.ones((), dtype=torch.float64, device=mean_error_ratio.device)
    error_ratio = torch.sqrt(mean_error_ratio).to(last_step)  # <- fixed
    exponent = torch.tensor(1 / order).to(last_step)  # <- fixed
    factor = torch.max(1 / ifactor, torch.min(error_ratio ** exponent / safety, 1 / dfactor))
    return last_step / factor


def odeint_heun(func, y0, t0, t1, tol):
    t, y = t0, y0
    dt = (t1 - t0) / 10
    while t < t1:
        dt = torch.min(dt, t1 - t)
        k1 = func(t, y)
        k2 = func(t + dt, y + dt * k1)
        y_new = y + dt * (k1 + k2) / 2
        err = (dt * (k2 - k1) / 2).abs().max() / tol
        if err <= 1:
            t, y = t + dt, y_new
        dt = _optimal_step_size(dt, err)
    return y


class ODEfunc(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, dim))

    def forward(self, t, x):
        return self.net(x)


class ODEBlock(nn.Module):
    def __init__(self, odefunc):
        super().__init__()
        self.odefunc = odefunc
        self.register_buffer("integration_time", torch.tensor([0.0, 1.0]))

    def forward(self, x):
        t0, t1 = self.integration_time[0], self.integration_time[1]
        return odeint_heun(self.odefunc, x, t0, t1, args.tol)


if __name__ == "__main__":
    device = torch.device("cuda:" + str(args.gpu) if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 64), ODEBlock(ODEfunc()), nn.Linear(64, 10)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss().to(device)
    for itr in range(20):
        x = torch.randn(128, 1, 28, 28).to(device)
        y = torch.randint(0, 10, (128,)).to(device)
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item())
