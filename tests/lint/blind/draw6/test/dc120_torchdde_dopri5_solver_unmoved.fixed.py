# devcheck bug corpus: DC120
# From: https://github.com/thibmonsel/torchdde/issues/43
# Fixed as the maintainer answered: the Dopri5 solver is put on the device
# with solver.to(device) after it is built, so its tableau tensors are on the
# same device as the model and the states.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchdde import Dopri5, integrate


class VectorField(nn.Module):
    def __init__(self, dim=2, width=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, width), nn.Tanh(),
            nn.Linear(width, width), nn.Tanh(),
            nn.Linear(width, dim),
        )

    def forward(self, t, y, args):
        return self.net(y)


def make_spiral(ts, batch=32):
    theta = torch.rand(batch) * 6.28
    y0 = torch.stack([torch.cos(theta), torch.sin(theta)], dim=-1) * 2.0
    decay = torch.exp(-0.3 * ts)[None, :, None]
    rot = torch.stack([torch.cos(ts), torch.sin(ts)], dim=-1)[None]
    return y0, y0[:, None, :] * decay * rot


def train(steps=200):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    ts = torch.linspace(0.0, 5.0, 50, device=device)
    model = VectorField().to(device)
    solver = Dopri5()  # <- fixed
    solver.to(device)  # <- fixed
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(steps):
        y0, target = make_spiral(ts.cpu())
        y0, target = y0.to(device), target.to(device)
        pred = integrate(model, solver, ts[0], ts[-1], ts, y0, None, dt0=ts[1] - ts[0])
        loss = nn.functional.mse_loss(pred, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(step, loss.item())


if __name__ == "__main__":
    train()
