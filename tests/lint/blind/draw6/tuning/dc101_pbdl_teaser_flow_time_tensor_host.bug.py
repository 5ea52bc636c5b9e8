# devcheck bug corpus: DC101
# From: https://github.com/tum-pbs/pbdl-book/issues/31
# From: https://github.com/tum-pbs/pbdl-book/commit/8eb2c3c7f78fc04ea679a3e8fae266dc21600216
# From: https://github.com/tum-pbs/pbdl-book/commit/4919e7a4298f3e0eef8564259f9d0ac1b336cdcb
# The book's flow-matching teaser trains a velocity network on the GPU and
# then integrates samples: each Euler step builds the time column with
# torch.tensor([i / n_steps]) on the CPU and the network concatenates it with
# the samples on the GPU. The final plot also hands CUDA tensors to matplotlib.
# Written for devcheck's tests after the thread; not the project's code.
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
N = 4000
X = np.random.random(N).astype(np.float32).reshape(-1, 1)
sign = (-np.ones((N,))).astype(np.float32) ** np.random.randint(2, size=N)
Y = (np.sqrt(X.flatten()) * sign).reshape(-1, 1).astype(np.float32)


class FlowPairs(Dataset):
    def __init__(self, xs, ys, sigma_min=1e-4):
        self.xs, self.ys, self.sigma_min = xs, ys, sigma_min

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, idx):
        x0 = np.random.normal(size=2)
        t = np.random.rand()
        x0[0] = self.xs[idx][0]
        x1 = np.concatenate([self.xs[idx], self.ys[idx]])
        x_t = (1 - (1 - self.sigma_min) * t) * x0 + t * x1
        return (torch.tensor(x_t, dtype=torch.float32), torch.tensor([t], dtype=torch.float32),
                torch.tensor(x1 - x0, dtype=torch.float32))


class VelocityNet(nn.Module):
    def __init__(self, hidden_dim=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, hidden_dim), nn.ReLU(),
                                 nn.Linear(hidden_dim, hidden_dim), nn.ReLU(),
                                 nn.Linear(hidden_dim, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def integrate_flow(net, x0, n_steps=100):
    trajectory = []
    dt = 1.0 / n_steps
    x_in = x0
    for i in range(n_steps):
        x0 = x0 + dt * net(x0, torch.tensor([i / n_steps]).expand(x0.shape[0], 1))  # <- bug
        x0[:, 0] = x_in[:, 0]
        trajectory.append(x0)
    return trajectory


nn_fm = VelocityNet().to(device)
optimizer = optim.Adam(nn_fm.parameters(), lr=0.001)
criterion = nn.MSELoss()
for epoch in range(10):
    for x_t, t, u_t in DataLoader(FlowPairs(X, Y), batch_size=128, shuffle=True):
        x_t, t, u_t = x_t.to(device), t.to(device), u_t.to(device)
        loss = criterion(nn_fm(x_t, t), u_t)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

x_gen = torch.linspace(0.0, 1.0, 500).to(device)
y_gen = torch.randn(500).to(device) * 0.95
with torch.no_grad():
    trajectory = integrate_flow(nn_fm, torch.stack([x_gen, y_gen], axis=-1))
plt.plot(X, Y, ".", color="lightgray")
plt.plot(trajectory[-1][:, 0].detach(), trajectory[-1][:, 1].detach(), ".", color="orange")  # <- bug
plt.show()
