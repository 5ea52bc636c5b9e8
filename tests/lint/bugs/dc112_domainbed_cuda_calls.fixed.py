# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/DomainBed/pull/30
# Some algorithms created tensors on the GPU with .cuda() and failed on a CPU-
# only run; the PR replaces .cuda() with .to(device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"


class Mixup:
    def __init__(self, network, alpha):
        self.network = network
        self.alpha = alpha

    def update(self, minibatches):
        objective = 0
        for (xi, yi), (xj, yj) in zip(minibatches[:-1], minibatches[1:]):
            lam = torch.distributions.Beta(self.alpha, self.alpha).sample().to(device)  # <- fixed
            x = lam * xi + (1 - lam) * xj
            predictions = self.network(x)
            objective += lam * F.cross_entropy(predictions, yi)
            objective += (1 - lam) * F.cross_entropy(predictions, yj)
        return objective / len(minibatches)
