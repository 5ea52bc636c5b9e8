# devcheck bug corpus: DC112
# From: https://github.com/mhpi/hydrodl2/pull/28
# The PR's fix moves the dynamic-parameter mask with .to(self.device), the device the
# model keeps and makes its states on, instead of a bare .cuda().
# Written for devcheck's tests after the thread; not the project's code.
from typing import Any, Optional

import torch


def change_param_range(param, bounds):
    return param * (bounds[1] - bounds[0]) + bounds[0]


class Hbv(torch.nn.Module):
    def __init__(self, config: Optional[dict[str, Any]] = None, device: Optional[torch.device] = None):
        super().__init__()
        self.dy_drop = 0.0
        self.dynamic_params = []
        self.nmul = 1
        self.device = device
        self.parameter_bounds = {"parBETA": [1.0, 6.0], "parFC": [50, 1000], "parK0": [0.05, 0.9], "parPERC": [0, 10]}
        if not device:
            self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if config is not None:
            self.dy_drop = config.get("dy_drop", self.dy_drop)
            self.dynamic_params = config.get("dynamic_params", self.dynamic_params)
            self.nmul = config.get("nmul", self.nmul)

    def descale_phy_parameters(self, phy_params: torch.Tensor, dy_list: list) -> dict:
        n_steps, n_grid = phy_params.size(0), phy_params.size(1)
        param_dict = {}
        pmat = torch.ones([1, n_grid, 1]) * self.dy_drop
        for i, name in enumerate(self.parameter_bounds.keys()):
            staPar = phy_params[-1, :, i, :].unsqueeze(0).repeat([n_steps, 1, 1])
            if name in dy_list:
                dynPar = phy_params[:, :, i, :]
                drmask = torch.bernoulli(pmat).detach_().to(self.device)  # <- fixed
                comPar = dynPar * (1 - drmask) + staPar * drmask
                param_dict[name] = change_param_range(comPar, self.parameter_bounds[name])
            else:
                param_dict[name] = change_param_range(staPar, self.parameter_bounds[name])
        return param_dict

    def forward(self, x: torch.Tensor, parameters: torch.Tensor) -> torch.Tensor:
        n_steps, n_grid = x.shape[0], x.shape[1]
        phy = torch.sigmoid(parameters).view(n_steps, n_grid, len(self.parameter_bounds), self.nmul)
        params = self.descale_phy_parameters(phy, self.dynamic_params)
        storage = torch.zeros([n_grid, self.nmul], dtype=torch.float32, device=self.device) + 0.001
        flows = []
        for t in range(n_steps):
            prcp = x[t, :, 0].unsqueeze(-1)
            storage = storage + prcp
            q = params["parK0"][t] * storage
            storage = storage - q
            flows.append(q.mean(-1))
        return torch.stack(flows)


if __name__ == "__main__":
    config = {"dy_drop": 0.1, "dynamic_params": ["parBETA", "parK0"], "nmul": 4}
    model = Hbv(config, device=torch.device("cpu"))
    x = torch.rand(30, 10, 3)
    params = torch.randn(30, 10, 4 * 4)
    print(model(x, params).shape)
