# devcheck bug corpus: DC111
# From: https://github.com/jorge-pessoa/pytorch-gdn/pull/5
# A GDN layer kept its pedestal and bounds as plain tensors made in __init__ and
# used them with its parameters in forward: on the GPU they stayed on the host.
# The fix set their device (registering them keeps them with the module).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class GDN(nn.Module):
    def __init__(self, ch, beta_min=1e-6, gamma_init=0.1, reparam_offset=2 ** -18):
        super().__init__()
        self.pedestal = torch.tensor([reparam_offset ** 2])  # <- bug
        beta = torch.sqrt(torch.ones(ch) + reparam_offset ** 2)
        self.beta = nn.Parameter(beta)
        gamma = torch.sqrt(gamma_init * torch.eye(ch) + reparam_offset ** 2)
        self.gamma = nn.Parameter(gamma)

    def forward(self, inputs):
        beta = self.beta ** 2 - self.pedestal  # <- bug
        gamma = (self.gamma ** 2 - self.pedestal).view(inputs.size(1), inputs.size(1), 1, 1)
        norm = nn.functional.conv2d(inputs ** 2, gamma, beta)
        return inputs / torch.sqrt(norm)
