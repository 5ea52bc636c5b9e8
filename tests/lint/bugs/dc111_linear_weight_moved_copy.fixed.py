# devcheck bug corpus: DC111
# From: https://github.com/shenweichen/DeepCTR-Torch/issues/87
# The linear part's weight is nn.Parameter(...).to(device): the copy is a plain
# tensor, so it is missing from state_dict() and from the optimizer's
# parameters.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Linear(nn.Module):
    def __init__(self, feature_columns, init_std=0.0001, device="cpu"):
        super().__init__()
        self.dense_feature_columns = feature_columns
        self.weight = nn.Parameter(torch.Tensor(sum(fc.dimension for fc in self.dense_feature_columns), 1).to(device))  # <- fixed
        torch.nn.init.normal_(self.weight, mean=0, std=init_std)

    def forward(self, dense_input):
        return dense_input.matmul(self.weight)
