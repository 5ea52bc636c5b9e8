# devcheck bug corpus: DC101
# From: https://github.com/TorchSim/torch-sim/pull/508
# Fixed: each system's atom indices are made on the device of the state's
# positions.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class FixAtoms:
    def __init__(self, atom_idx):
        self.atom_idx = atom_idx

    def select(self, atom_idx, offset):
        keep = torch.isin(self.atom_idx, atom_idx)
        return FixAtoms(self.atom_idx[keep] - offset)


def split_state(positions, system_idx, constraint, n_systems):
    counts = torch.bincount(system_idx, minlength=n_systems)
    cumsum = torch.cat([counts.new_zeros(1), counts.cumsum(0)])
    states = []
    for sys in range(n_systems):
        start, end = int(cumsum[sys]), int(cumsum[sys + 1])
        atom_idx = torch.arange(start, end, device=positions.device)  # <- fixed
        states.append((positions[start:end], constraint.select(atom_idx, start)))
    return states


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    positions = torch.randn(12, 3, device=device)
    system_idx = torch.tensor([0] * 5 + [1] * 7, device=device)
    constraint = FixAtoms(torch.tensor([0, 1, 6], device=device))
    for pos, fixed in split_state(positions, system_idx, constraint, 2):
        print(pos.shape, fixed.atom_idx)


if __name__ == "__main__":
    main()
