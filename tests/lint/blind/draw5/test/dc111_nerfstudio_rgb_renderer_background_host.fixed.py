# devcheck bug corpus: DC111
# From: https://github.com/nerfstudio-project/nerfstudio/pull/2381
# Fixed: the compositing step moves the background colour to the device of
# the accumulated colours before blending; the renderer still keeps it as a
# plain attribute.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Literal, Union

import torch
from torch import Tensor, nn

WHITE = torch.tensor([1.0, 1.0, 1.0])
BLACK = torch.tensor([0.0, 0.0, 0.0])
BackgroundColor = Union[Literal["random", "last_sample"], Tensor]


class RGBRenderer(nn.Module):
    def __init__(self, background_color: BackgroundColor = "random") -> None:
        super().__init__()
        self.background_color = background_color  # <- fixed

    @classmethod
    def combine_rgb(cls, rgb, weights, background_color: BackgroundColor = "random"):
        comp_rgb = torch.sum(weights * rgb, dim=-2)
        accumulated_weight = torch.sum(weights, dim=-2)
        if isinstance(background_color, str) and background_color == "random":
            return comp_rgb
        if isinstance(background_color, str) and background_color == "last_sample":
            background_color = rgb[..., -1, :]
        assert isinstance(background_color, torch.Tensor)
        comp_rgb = comp_rgb + background_color.to(comp_rgb.device) * (1.0 - accumulated_weight)  # <- fixed
        return comp_rgb

    def forward(self, rgb, weights):
        return self.combine_rgb(rgb, weights, background_color=self.background_color)


class NeRFModel(nn.Module):
    def __init__(self, num_samples=64, hidden=128):
        super().__init__()
        self.num_samples = num_samples
        self.field = nn.Sequential(nn.Linear(3, hidden), nn.ReLU(), nn.Linear(hidden, 4))
        self.renderer_rgb = RGBRenderer(background_color=WHITE)

    def forward(self, origins, directions, near=2.0, far=6.0):
        t = torch.linspace(near, far, self.num_samples, device=origins.device)
        points = origins[:, None, :] + directions[:, None, :] * t[None, :, None]
        out = self.field(points)
        rgb, density = torch.sigmoid(out[..., :3]), torch.relu(out[..., 3:])
        delta = (far - near) / self.num_samples
        alpha = 1.0 - torch.exp(-density * delta)
        trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha[:, :-1]], dim=1), dim=1)
        return self.renderer_rgb(rgb=rgb, weights=alpha * trans)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = NeRFModel().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(100):
        origins = torch.zeros(1024, 3, device=device)
        directions = torch.nn.functional.normalize(torch.randn(1024, 3, device=device), dim=-1)
        target = torch.rand(1024, 3, device=device)
        loss = torch.nn.functional.mse_loss(model(origins, directions), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
