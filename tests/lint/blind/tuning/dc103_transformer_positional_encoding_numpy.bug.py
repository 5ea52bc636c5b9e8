# devcheck bug corpus: DC103
# From: https://github.com/wingedsheep/transformer/issues/4
# A from-scratch transformer computed its sinusoidal positional encoding with
# NumPy and returned torch.from_numpy(...).float(), added to the token
# embeddings (on the GPU) in forward: "Expected all tensors to be on the same
# device". The fix moved the encoding to the device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len):
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len

    def forward(self, x):
        positions = np.arange(self.max_len)[:, None]
        dims = np.arange(self.d_model)[None, :]
        angles = positions / np.power(10000, (2 * (dims // 2)) / self.d_model)
        angles[:, 0::2] = np.sin(angles[:, 0::2])
        angles[:, 1::2] = np.cos(angles[:, 1::2])
        positional_encoding = torch.from_numpy(angles).float()  # <- bug
        return x + positional_encoding[: x.size(1)]


class Transformer(nn.Module):
    def __init__(self, vocab, d_model, max_len):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len)

    def forward(self, tokens):
        return self.positional_encoding(self.embedding(tokens))
