# devcheck bug corpus: DC101
# From: https://github.com/toshas/torch_truncnorm/issues/2
# Fixed: the uniform variates are drawn on the device of the distribution's
# own tensors.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
from torch.distributions import Distribution, constraints


class TruncatedStandardNormal(Distribution):
    arg_constraints = {"a": constraints.real, "b": constraints.real}
    has_rsample = True

    def __init__(self, a, b, validate_args=None):
        self.a, self.b = torch.broadcast_tensors(a, b)
        super().__init__(self.a.shape, validate_args=validate_args)
        self._little_phi_a = torch.exp(-0.5 * self.a ** 2) / math.sqrt(2 * math.pi)
        self._big_phi_a = 0.5 * (1 + torch.erf(self.a / math.sqrt(2)))
        self._big_phi_b = 0.5 * (1 + torch.erf(self.b / math.sqrt(2)))
        self._Z = (self._big_phi_b - self._big_phi_a).clamp_min(1e-6)

    def icdf(self, value):
        y = self._big_phi_a + value * self._Z
        return math.sqrt(2) * torch.erfinv(2 * y - 1)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        p = torch.empty(shape, device=self.a.device).uniform_(1e-6, 1 - 1e-6)  # <- fixed
        return self.icdf(p)


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    loc = torch.zeros(8, device=device)
    scale = torch.ones(8, device=device)
    dist = TruncatedStandardNormal((-1 - loc) / scale, (1 - loc) / scale)
    print(dist.rsample((4,)).shape)


if __name__ == "__main__":
    main()
