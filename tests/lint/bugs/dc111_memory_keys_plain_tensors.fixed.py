# devcheck bug corpus: DC111
# From: https://github.com/SimonThomine/RememberingNormality/issues/7
# A memory module keeps self.keys = torch.randn(L, channel).to("cuda") and
# self.values the same way: plain tensors, never trained and not in the
# state_dict; fixed by wrapping them in nn.Parameter (commit 1d99145).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class NormalityMemory(nn.Module):
    def __init__(self, L, channel):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(L, channel))  # <- fixed
        self.values = nn.Parameter(torch.randn(L, channel))  # <- fixed

    def forward(self, query):
        attention = F.softmax(query @ self.keys.t(), dim=-1)
        return attention @ self.values
