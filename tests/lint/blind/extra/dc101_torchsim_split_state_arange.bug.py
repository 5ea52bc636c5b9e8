# devcheck bug corpus: DC101
# From: https://github.com/TorchSim/torch-sim/pull/508
# Splitting a batched simulation state into one state per system, the atom
# indices of each system were made with torch.arange(start, end) and no
# device: on the CPU, while the constraint's atom indices lived with the
# state on the GPU, and torch.isin of the two failed. The fix passes the
# state's device to arange.
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
        atom_idx = torch.arange(start, end)  # <- bug
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
