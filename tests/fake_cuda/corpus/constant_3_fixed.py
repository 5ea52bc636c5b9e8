# kind: tensor-constant-in-loss
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/balbasty/cornucopia/pull/22
# fix: new_mu = torch.rand(self.nk).to(x) * (vmax - vmin) + vmin
"""A random-contrast augmentation on GPU image batches: intensities are
remapped through a few random control points drawn with torch.rand, scaled
by the image's min and max (0-dim tensors on the image's device)."""
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class RandomContrast:
    def __init__(self, nk=4):
        self.nk = nk

    def make_final(self, x):
        vmin, vmax = x.min(), x.max()
        edges = torch.linspace(vmin, vmax, self.nk + 1)
        new_mu = torch.rand(self.nk).to(x) * (vmax - vmin) + vmin
        return edges, new_mu.sort().values

    def __call__(self, x):
        edges, new_mu = self.make_final(x)
        centers = ((edges[1:] + edges[:-1]) / 2).to(x)
        weights = torch.softmax(-(x[..., None] - centers) ** 2, dim=-1)
        return (weights * new_mu).sum(-1)


augment = RandomContrast()
images = torch.rand(2, 1, 8, 8).to(device)
out = augment(images)
print(tuple(out.shape), round(out.mean().item(), 4))
