# devcheck bug corpus: DC101
# From: https://github.com/balbasty/cornucopia/pull/22
# Fixed: the random means are moved to the image's device and dtype before
# they are scaled.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class RandomGaussianMixture(nn.Module):
    def __init__(self, nk=16):
        super().__init__()
        self.nk = nk

    def make_final(self, x):
        vmin, vmax = x.min(), x.max()
        edges = torch.linspace(vmin, vmax, self.nk + 1)
        new_mu = torch.rand(self.nk).to(x) * (vmax - vmin) + vmin  # <- fixed
        return edges, new_mu

    def forward(self, x):
        edges, new_mu = self.make_final(x)
        out = torch.zeros_like(x)
        for k in range(self.nk):
            inside = (x >= edges[k]) & (x < edges[k + 1])
            out = torch.where(inside, new_mu[k], out)
        return out


def augment(batch):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = RandomGaussianMixture()
    return transform(batch.to(device))
