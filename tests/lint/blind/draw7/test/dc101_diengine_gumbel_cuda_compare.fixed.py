# devcheck bug corpus: DC101
# From: https://github.com/opendilab/DI-engine/pull/169
# After the review the noise is drawn in the sampling method and moved with
# U.to(x.device), to whatever device the logits are on, with no comparison
# against torch.device("cuda").
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class GumbelSoftmax(nn.Module):
    def __init__(self):
        super().__init__()

    def gumbel_softmax_sample(self, x, temperature, eps=1e-8):
        u = torch.rand(x.shape)  # <- fixed
        u = u.to(x.device)  # <- fixed
        y = x - torch.log(-torch.log(u + eps) + eps)
        return F.softmax(y / temperature, dim=1)

    def forward(self, x, temperature=1.0, hard=False):
        y = self.gumbel_softmax_sample(x, temperature)
        if hard:
            y_hard = torch.zeros_like(x)
            y_hard[torch.arange(0, x.shape[0]), y.max(1)[1]] = 1
            y = (y_hard - y).detach() + y
        return y


class DiscreteActor(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU())
        self.head = nn.Linear(128, action_dim)
        self.gumbel = GumbelSoftmax()

    def forward(self, obs, temperature=1.0):
        logits = self.head(self.encoder(obs))
        return self.gumbel(logits, temperature, hard=True)


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    actor = DiscreteActor(obs_dim=24, action_dim=6).to(device)
    optimizer = torch.optim.Adam(actor.parameters(), lr=3e-4)
    for _ in range(10):
        obs = torch.randn(64, 24, device=device)
        action = actor(obs)
        loss = -(action * torch.randn(64, 6, device=device)).sum(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
