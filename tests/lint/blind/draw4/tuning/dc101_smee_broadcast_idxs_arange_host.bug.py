# devcheck bug corpus: DC101
# From: https://github.com/openforcefield/smee/pull/80
# smee broadcasts each topology's particle and exclusion indices to the whole
# system by adding a per-copy offset made with torch.arange(n_copies): on the
# CPU. Once the system's parameters have been moved to CUDA the offset meets
# CUDA index tensors and the energy cannot be computed on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass, field

import torch


@dataclass
class ParameterMap:
    particle_idxs: torch.Tensor
    exclusions: torch.Tensor

    def to(self, device):
        return ParameterMap(self.particle_idxs.to(device), self.exclusions.to(device))


@dataclass
class TensorTopology:
    n_particles: int
    parameters: dict = field(default_factory=dict)

    def to(self, device):
        return TensorTopology(self.n_particles, {k: v.to(device) for k, v in self.parameters.items()})


@dataclass
class TensorSystem:
    topologies: list
    n_copies: list

    def to(self, device):
        return TensorSystem([t.to(device) for t in self.topologies], self.n_copies)


def broadcast_idxs(system, potential_type):
    idx_offset = 0
    per_topology_idxs = []
    for topology, n_copies in zip(system.topologies, system.n_copies):
        offset = idx_offset + torch.arange(n_copies) * topology.n_particles  # <- bug
        idxs = topology.parameters[potential_type].particle_idxs
        n_interacting = idxs.shape[-1]
        if len(idxs) > 0:
            idxs = offset[:, None, None] + idxs[None, :, :]
            per_topology_idxs.append(idxs.reshape(-1, n_interacting))
        idx_offset += n_copies * topology.n_particles
    return torch.vstack(per_topology_idxs)


def broadcast_exclusions(system, potential_type):
    idx_offset = 0
    per_topology = []
    for topology, n_copies in zip(system.topologies, system.n_copies):
        exclusion_offset = idx_offset + torch.arange(n_copies) * topology.n_particles  # <- bug
        idx_offset += n_copies * topology.n_particles
        exclusion_idxs = topology.parameters[potential_type].exclusions
        if len(exclusion_idxs) == 0:
            continue
        exclusion_idxs = exclusion_offset[:, None, None] + exclusion_idxs[None, :, :]
        per_topology.append(exclusion_idxs.reshape(-1, 2))
    return torch.vstack(per_topology)


def compute_bond_energy(system, coords, k, r0):
    idxs = broadcast_idxs(system, "Bonds")
    excluded = broadcast_exclusions(system, "Bonds")
    r = (coords[idxs[:, 1]] - coords[idxs[:, 0]]).norm(dim=-1)
    return 0.5 * (k * (r - r0) ** 2).sum(), excluded.shape[0]


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    water = TensorTopology(3, {"Bonds": ParameterMap(torch.tensor([[0, 1], [0, 2]]), torch.tensor([[0, 1], [0, 2], [1, 2]]))})
    system = TensorSystem([water], [216]).to(device)
    coords = torch.randn(216 * 3, 3, device=device, requires_grad=True)
    energy, n_excl = compute_bond_energy(system, coords, torch.tensor(1000.0, device=device), 0.96)
    energy.backward()
    print(energy.item(), n_excl)
