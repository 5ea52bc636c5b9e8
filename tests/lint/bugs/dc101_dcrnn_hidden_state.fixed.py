# devcheck bug corpus: DC101
# From: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/18
# A recurrent graph cell makes its initial hidden state with torch.zeros in a
# helper method when none is passed; concatenated with the node features on the
# GPU it fails: "All input tensors must be on the same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class DCRNN(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.out_channels = out_channels
        self.update = nn.Linear(in_channels + out_channels, out_channels)
        self.candidate = nn.Linear(in_channels + out_channels, out_channels)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels).to(X.device)  # <- fixed
        return H

    def forward(self, X, H=None):
        H = self._set_hidden_state(X, H)
        Z = torch.sigmoid(self.update(torch.cat([X, H], dim=1)))
        H_tilde = torch.tanh(self.candidate(torch.cat([X, H * Z], dim=1)))
        return Z * H + (1 - Z) * H_tilde
