# devcheck bug corpus: DC103
# From: https://github.com/MatthewWilletts/algostability/issues/2
# The sample() method of a VaDE model built its one-hot component codes with
# NumPy (np.eye) and torch.tensor, on the CPU, and multiplied them with the
# model's component means, a parameter on the GPU once the model was moved:
# "Expected all tensors to be on the same device ... (when checking argument
# for argument mat2 in method wrapper_mm)". The fix suggested in the thread
# moves the codes to the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class VaDE(nn.Module):
    def __init__(self, latent_dim, num_components):
        super().__init__()
        self.num_components = num_components
        self.mu_p_z = nn.Parameter(torch.randn(latent_dim, num_components))
        self.decoder = nn.Linear(latent_dim, 784)

    def forward(self, z):
        return torch.sigmoid(self.decoder(z))

    def sample(self, n, per_comp=True):
        y_samples = torch.tensor(np.eye(self.num_components, dtype=np.float32))  # <- bug
        loc = y_samples @ self.mu_p_z.permute(1, 0)
        z = loc.repeat(n, 1) + torch.randn_like(loc.repeat(n, 1))
        return self.decoder(z)
