# devcheck bug corpus: DC111
# From: https://github.com/Fraunhofer-IIS/prosper_nn/issues/13
# A recurrent state-space cell kept its initial state as a plain tensor attribute
# (not a Parameter or buffer): moving the model to the GPU left it on the host,
# where it met the cell's output.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ECNNCell(nn.Module):
    def __init__(self, n_features, n_state):
        super().__init__()
        self.A = nn.Linear(n_state, n_state, bias=False)
        self.B = nn.Linear(n_features, n_state, bias=False)
        self.init_state = torch.zeros(1, n_state)  # <- bug

    def forward(self, u):
        state = self.init_state
        outputs = []
        for t in range(u.size(0)):
            state = torch.tanh(self.A(state) + self.B(u[t]))  # <- bug
            outputs.append(state)
        return torch.stack(outputs)


def train(model, data, device):
    model.to(device)
    return model(data.to(device))
