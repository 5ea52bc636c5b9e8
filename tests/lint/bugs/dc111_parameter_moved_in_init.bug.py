# devcheck bug corpus: DC111
# From: https://github.com/pytorch/pytorch/issues/39062
# A custom layer writes self.threshold =
# nn.Parameter(torch.randn(1)).to("cuda"): the moved copy is a plain tensor, so
# model.parameters() is empty and nothing is trained.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class CustomLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.threshold = nn.Parameter(torch.randn(1)).to("cuda")  # <- bug

    def forward(self, input):
        return torch.relu(input - self.threshold)


model = nn.Sequential(CustomLayer()).to("cuda")
