# devcheck bug corpus: DC101
# From: https://github.com/AdaptInfer/Contextualized/issues/254
# Fixed (pull request #256): the identity matrices are moved to the device of
# the networks they are combined with (torch.eye(d).to(w.device)).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def dag_loss_dagma_indiv(w, s=1):
    M = s * torch.eye(w.shape[-1]).to(w.device) - w * w  # <- fixed
    return w.shape[-1] * np.log(s) - torch.slogdet(M)[1]


def dag_loss_dagma(W, s=1, alpha=0.0, **kwargs):
    losses = torch.stack([dag_loss_dagma_indiv(w, s) for w in W])
    return alpha * torch.mean(losses)


def dag_loss_poly_indiv(w):
    d = w.shape[-1]
    return torch.trace(torch.eye(d).to(w.device) + (1 / d) * torch.matmul(w, w)) - d  # <- fixed


def dag_loss_poly(W, **kwargs):
    return torch.mean(torch.stack([dag_loss_poly_indiv(w) for w in W]))


class ContextualizedBayesianNetworks(nn.Module):
    def __init__(self, context_dim, x_dim, archetypes=8, dag_loss=dag_loss_poly):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(context_dim, 64), nn.ReLU(), nn.Linear(64, archetypes))
        self.archetypes = nn.Parameter(torch.randn(archetypes, x_dim, x_dim) * 0.01)
        self.dag_loss = dag_loss

    def forward(self, c):
        weights = torch.softmax(self.encoder(c), dim=-1)
        W = torch.einsum("na,aij->nij", weights, self.archetypes)
        return W * (1 - torch.eye(W.shape[-1], device=W.device))

    def training_loss(self, c, x):
        W = self(c)
        recon = ((x.unsqueeze(1) @ W).squeeze(1) - x).pow(2).mean()
        return recon + 0.1 * self.dag_loss(W)


def fit(model, loader, device, epochs=10):
    model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for c, x in loader:
            loss = model.training_loss(c.to(device), x.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
