# devcheck bug corpus: DC101
# From: https://github.com/tonyduan/normalizing-flows/pull/6
# The flows and the flow model start their log-determinant accumulators with
# torch.zeros(n) on the CPU; with the prior, the model and the data on the
# GPU, adding the flows' CUDA log-determinants to them fails.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn
import torch.nn.init as init
from torch.distributions import MultivariateNormal


class FCNN(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_dim):
        super().__init__()
        self.network = nn.Sequential(
            nn.Linear(in_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, out_dim),
        )

    def forward(self, x):
        return self.network(x)


class MAF(nn.Module):
    def __init__(self, dim, hidden_dim=8):
        super().__init__()
        self.dim = dim
        self.layers = nn.ModuleList([FCNN(i, 2, hidden_dim) for i in range(1, dim)])
        self.initial_param = nn.Parameter(torch.Tensor(2))
        init.uniform_(self.initial_param, -math.sqrt(0.5), math.sqrt(0.5))

    def forward(self, x):
        z = torch.zeros_like(x)
        log_det = torch.zeros(z.shape[0])  # <- bug
        for i in range(self.dim):
            if i == 0:
                mu, alpha = self.initial_param[0], self.initial_param[1]
            else:
                out = self.layers[i - 1](x[:, :i])
                mu, alpha = out[:, 0], out[:, 1]
            z[:, i] = (x[:, i] - mu) / torch.exp(alpha)
            log_det -= alpha
        return z.flip(dims=(1,)), log_det


class NormalizingFlowModel(nn.Module):
    def __init__(self, prior, flows):
        super().__init__()
        self.prior = prior
        self.flows = nn.ModuleList(flows)

    def forward(self, x):
        m, _ = x.shape
        log_det = torch.zeros(m)  # <- bug
        for flow in self.flows:
            x, ld = flow.forward(x)
            log_det += ld
        prior_logprob = self.prior.log_prob(x)
        return x, prior_logprob, log_det


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    prior = MultivariateNormal(torch.zeros(2).to(device), torch.eye(2).to(device))
    model = NormalizingFlowModel(prior, [MAF(dim=2) for _ in range(4)]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
    x = torch.randn(512, 2).to(device)
    for step in range(500):
        optimizer.zero_grad()
        z, prior_logprob, log_det = model(x)
        loss = -torch.mean(prior_logprob + log_det)
        loss.backward()
        optimizer.step()
