# devcheck bug corpus: DC103
# From: https://github.com/aidos-lab/pytorch-topological/pull/6
# Fixed: the zero births are made on the device of the distance matrix
# (zeros_like(..., device=dist.device)).
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from gph import ripser_parallel


class PersistenceInformation:
    def __init__(self, pairing, diagram, dimension):
        self.pairing = pairing
        self.diagram = diagram
        self.dimension = dimension


class VietorisRipsComplex(nn.Module):
    def __init__(self, dim=1, p=2):
        super().__init__()
        self.dim = dim
        self.p = p
        self.ripser_params = {"return_generators": True, "maxdim": dim}

    def forward(self, x):
        if isinstance(x, list) or len(x.shape) == 3:
            return [self._forward(torch.as_tensor(x_)) for x_ in x]
        return self._forward(torch.as_tensor(x))

    def _forward(self, x):
        generators = ripser_parallel(x.cpu().detach(), **self.ripser_params)["gens"]
        distances = torch.cdist(x, x, p=self.p)
        info = self._extract(distances, generators, dim0=True)
        if self.dim >= 1:
            info.extend(self._extract(distances, generators, dim0=False))
        return info

    def _extract(self, dist, gens, dim0=False):
        gens = gens[0 if dim0 else 1]
        if dim0:
            creators = torch.zeros_like(torch.as_tensor(gens)[:, 0], device=dist.device)  # <- fixed
            destroyers = dist[gens[:, 1], gens[:, 2]]
            diagram = torch.stack((creators, destroyers), 1)
            return [PersistenceInformation(gens, diagram, 0)]
        result = []
        for index, gens_ in enumerate(gens):
            creators = dist[gens_[:, 0], gens_[:, 1]]
            destroyers = dist[gens_[:, 2], gens_[:, 3]]
            result.append(PersistenceInformation(gens_, torch.stack((creators, destroyers), 1), index + 1))
        return result


if __name__ == "__main__":
    points = torch.randn(64, 3, device="cuda", requires_grad=True)
    diagrams = VietorisRipsComplex(dim=1)(points)
    sum(d.diagram.sum() for d in diagrams).backward()
