# devcheck bug corpus: DC111
# From: https://github.com/pytorch/pytorch/issues/17484
# self.par = torch.nn.Parameter(torch.rand(5)).to('cuda') in __init__: the
# module's state_dict() is empty.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class A(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.par = torch.nn.Parameter(torch.rand(5, device="cuda"))  # <- fixed

    def forward(self, x):
        return x * self.par
