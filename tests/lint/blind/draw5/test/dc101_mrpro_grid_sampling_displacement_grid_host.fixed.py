# devcheck bug corpus: DC101
# From: https://github.com/PTB-MR/mrpro/issues/823
# From: https://github.com/PTB-MR/mrpro/pull/824
# The fix leaves the identity grid on the CPU and moves each grid component
# to its displacement field (grid_x.to(displacement_x), also taking its dtype)
# before adding them, so displacements on any GPU work.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F


class GridSamplingOp(torch.nn.Module):
    def __init__(self, grid_z, grid_y, grid_x, align_corners=True):
        super().__init__()
        if grid_z is None:
            grid = torch.stack((grid_x, grid_y), dim=-1)
        else:
            grid = torch.stack((grid_x, grid_y, grid_z), dim=-1)
        self.register_buffer("grid", grid)
        self.align_corners = align_corners

    @classmethod
    def from_displacement(cls, displacement_z, displacement_y, displacement_x):
        n_y, n_x = displacement_x.shape[-2:]
        if displacement_z is not None:
            n_z = displacement_x.shape[-3]
            grid_z, grid_y, grid_x = torch.meshgrid(
                torch.linspace(-1, 1, n_z), torch.linspace(-1, 1, n_y), torch.linspace(-1, 1, n_x), indexing="ij"  # <- fixed
            )
            grid_z = grid_z.to(displacement_z) + displacement_z * 2 / (n_z - 1)  # <- fixed
            grid_y = grid_y.to(displacement_y) + displacement_y * 2 / (n_y - 1)  # <- fixed
            grid_x = grid_x.to(displacement_x) + displacement_x * 2 / (n_x - 1)  # <- fixed
        else:
            grid_y, grid_x = torch.meshgrid(torch.linspace(-1, 1, n_y), torch.linspace(-1, 1, n_x), indexing="ij")  # <- fixed
            grid_y = grid_y.to(displacement_y) + displacement_y * 2 / (n_y - 1)  # <- fixed
            grid_x = grid_x.to(displacement_x) + displacement_x * 2 / (n_x - 1)  # <- fixed
            grid_z = None
        return cls(grid_z, grid_y, grid_x, align_corners=True)

    def forward(self, x):
        return (F.grid_sample(x, self.grid, mode="bilinear", align_corners=self.align_corners),)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    displacement_z = torch.zeros(1, 30, 40, 40).to(device)
    displacement_y = torch.zeros(1, 30, 40, 40).to(device)
    displacement_x = torch.zeros(1, 30, 40, 40).to(device)
    op = GridSamplingOp.from_displacement(displacement_z, displacement_y, displacement_x)
    volume = torch.rand(1, 1, 30, 40, 40, device=device)
    (warped,) = op(volume)
    print(warped.shape, warped.device)


if __name__ == "__main__":
    main()
