# devcheck bug corpus: DC103
# From: https://github.com/eifuentes/swae-pytorch/issues/3
# From: https://github.com/eifuentes/swae-pytorch/pull/5
# Sliced Wasserstein autoencoder: the random projections and the prior samples
# are built with NumPy and torch.from_numpy on the host, then multiplied with the
# encoder's codes, which live on the GPU the trainer was given.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def sample_disc(n):
    r = np.sqrt(np.random.uniform(size=n))
    t = 2 * np.pi * np.random.uniform(size=n)
    pts = np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
    return torch.from_numpy(pts).float()


def random_directions(dim, count=50):
    w = np.random.normal(size=(count, dim))
    w = w / np.linalg.norm(w, axis=1, keepdims=True)
    return torch.from_numpy(w).float()


def swd(codes, prior_fn=sample_disc, n_proj=50, p=2):
    prior = prior_fn(codes.size(0))  # <- bug
    dirs = random_directions(prior.size(1), n_proj)  # <- bug
    code_proj = codes.matmul(dirs.t())
    prior_proj = prior.matmul(dirs.t())
    gap = torch.sort(code_proj.t(), dim=1)[0] - torch.sort(prior_proj.t(), dim=1)[0]
    return gap.pow(p).mean()


class AutoEncoder(nn.Module):
    def __init__(self, dim=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, dim))
        self.decoder = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, 784), nn.Sigmoid())

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z).view_as(x), z


class SWAETrainer:
    def __init__(self, model, optimizer, weight=10.0, device=None):
        self.model = model
        self.optimizer = optimizer
        self.weight = weight
        self.device = device if device is not None else torch.device("cpu")

    def step(self, x):
        self.optimizer.zero_grad()
        x = x.to(self.device)
        recon, z = self.model(x)
        loss = F.binary_cross_entropy(recon, x) + F.l1_loss(recon, x)
        loss = loss + self.weight * swd(z)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = AutoEncoder().to(device)
    trainer = SWAETrainer(model, torch.optim.Adam(model.parameters(), lr=1e-3), device=device)
    for _ in range(10):
        print(trainer.step(torch.rand(64, 1, 28, 28)))


if __name__ == "__main__":
    main()
