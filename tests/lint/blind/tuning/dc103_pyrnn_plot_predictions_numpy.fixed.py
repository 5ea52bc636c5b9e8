# devcheck bug corpus: DC103
# From: https://github.com/FedeClaudi/pyrnn/issues/1
# The three-bit-memory example trained its RNN on the GPU, then plot_predictions
# made a new batch with NumPy, turned it into tensors with torch.from_numpy and
# ran the network on it: "Expected all tensors to be on the same device, but
# found at least two devices, cpu and cuda:0!".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def make_batch(N, batch_size):
    X = np.random.choice([-1, 0, 1], size=(batch_size, N, 3)).astype(np.float32)
    Y = np.sign(np.cumsum(X, axis=1)).astype(np.float32)
    return X, Y


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(3, 50, batch_first=True)
        self.out = nn.Linear(50, 3)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h)


def plot_predictions(rnn, N, batch_size):
    X, Y = make_batch(N, batch_size)
    X = torch.from_numpy(X).to(next(rnn.parameters()).device)  # <- fixed
    o = rnn(X)
    return o.detach().cpu().numpy(), Y


def main():
    rnn = RNN().cuda()
    plot_predictions(rnn, 100, 64)
