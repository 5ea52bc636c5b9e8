# devcheck bug corpus: DC111
# From: https://github.com/meta-pytorch/botorch/pull/1035
# Fixed: the perturbation set and the bounds are registered as buffers, so
# Module.to(...) moves them with the model.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import Tensor
from torch.nn import Module


class InputPerturbation(Module):
    def __init__(self, perturbation_set, bounds=None, multiplicative=False):
        super().__init__()
        if perturbation_set.dim() != 2:
            raise ValueError("`perturbation_set` must be an `n_p x d`-dim tensor!")
        self.register_buffer("perturbation_set", perturbation_set)  # <- fixed
        if bounds is not None:  # <- fixed
            if bounds.shape[-1] != perturbation_set.shape[-1]:  # <- fixed
                raise ValueError("`bounds` must have as many columns as `perturbation_set`")  # <- fixed
            self.register_buffer("bounds", bounds)  # <- fixed
        else:  # <- fixed
            self.bounds = None  # <- fixed
        self.multiplicative = multiplicative

    def forward(self, X: Tensor) -> Tensor:
        expanded_X = X.unsqueeze(-2).expand(*X.shape[:-1], self.perturbation_set.shape[0], -1)
        expanded_p = self.perturbation_set.expand(*expanded_X.shape[:-1], -1)
        if self.multiplicative:
            out = expanded_X * expanded_p
        else:
            out = expanded_X + expanded_p
        out = out.reshape(*X.shape[:-2], -1, X.shape[-1])
        if self.bounds is not None:
            out = torch.maximum(torch.minimum(out, self.bounds[1]), self.bounds[0])
        return out


class PerturbedMean(Module):
    def __init__(self, d, input_transform):
        super().__init__()
        self.input_transform = input_transform
        self.weight = torch.nn.Parameter(torch.randn(d))

    def forward(self, X):
        return (self.input_transform(X) * self.weight).sum(-1)


if __name__ == "__main__":
    d = 3
    perturbations = torch.randn(8, d) * 0.05
    bounds = torch.stack([torch.zeros(d), torch.ones(d)])
    model = PerturbedMean(d, InputPerturbation(perturbations, bounds=bounds))
    model.to("cuda")
    print(model(torch.rand(4, 2, d, device="cuda")).shape)
