# devcheck bug corpus: DC102
# From: https://github.com/facebookresearch/aepsych/pull/672
# AEPsych's model mixin meant its train_inputs property and setter to keep
# the GP's training inputs on the model's device, "moving in place" with
# input.to(self.device) in a loop; tensors do not move in place, so after
# model.to("cuda") the getter still hands back the CPU inputs and fitting
# evaluates CUDA parameters on CPU training points.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Optional, Tuple

import gpytorch
import torch


class AEPsychModelMixin:
    _train_inputs: Optional[Tuple[torch.Tensor, ...]]
    _train_targets: Optional[torch.Tensor]

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    @property
    def train_inputs(self):
        if self._train_inputs is None:
            return None
        # makes sure the tensors are on the right device, move in place
        for input in self._train_inputs:
            input.to(self.device)  # <- bug
        return self._train_inputs

    @train_inputs.setter
    def train_inputs(self, train_inputs):
        if train_inputs is None:
            self._train_inputs = None
        else:
            for input in train_inputs:
                input.to(self.device)  # <- bug
            self._train_inputs = train_inputs

    @property
    def train_targets(self):
        if self._train_targets is None:
            return None
        self._train_targets = self._train_targets.to(self.device)
        return self._train_targets

    @train_targets.setter
    def train_targets(self, train_targets):
        self._train_targets = None if train_targets is None else train_targets.to(self.device)


class GPRegressionModel(AEPsychModelMixin, gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))

    def fit(self, steps=50):
        self.train()
        self.likelihood.train()
        mll = gpytorch.mlls.ExactMarginalLogLikelihood(self.likelihood, self)
        optimizer = torch.optim.Adam(self.parameters(), lr=0.1)
        train_x, train_y = self.train_inputs[0], self.train_targets
        for _ in range(steps):
            optimizer.zero_grad()
            loss = -mll(self(train_x), train_y)
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.rand(40, 2)
    y = torch.sin(6 * x[:, 0]) + 0.1 * torch.randn(40)
    model = GPRegressionModel(x, y, gpytorch.likelihoods.GaussianLikelihood())
    model.to(device)
    model.fit()
