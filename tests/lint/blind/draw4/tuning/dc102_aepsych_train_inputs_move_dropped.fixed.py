# devcheck bug corpus: DC102
# From: https://github.com/facebookresearch/aepsych/pull/672
# From: https://github.com/facebookresearch/aepsych/commit/a5bf63d7bb959ef98ded321cf118172394fa477b
# The fix (commit a5bf63d) returns and stores a new tuple of the moved
# tensors, tuple([input.to(self.device) for input in ...]), in the getter and
# in the setter.
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
        # make sure the tuple is on the right device
        return tuple([input.to(self.device) for input in self._train_inputs])  # <- fixed

    @train_inputs.setter
    def train_inputs(self, train_inputs):
        if train_inputs is None:
            self._train_inputs = None
        else:
            inputs = tuple([input.to(self.device) for input in train_inputs])  # <- fixed
            self._train_inputs = inputs

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
