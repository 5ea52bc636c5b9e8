# devcheck bug corpus: DC101
# From: https://github.com/pytorch/pytorch/pull/2353
# The backward of prod reversed a dimension with index_select and an index made
# by torch.arange on the host; for a CUDA input the index was on the wrong
# device. The fix made the index where the input is.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def reverse_dim(var, dim):
    index = torch.arange(var.size(dim) - 1, -1, -1).long()  # <- bug
    return var.index_select(dim, index)


def safe_zeros_backward(inp, dim):
    ones = torch.ones_like(inp)
    exclusive = torch.cat([ones.narrow(dim, 0, 1), inp], dim).cumprod(dim)
    return reverse_dim(exclusive, dim)


def main():
    device = torch.device("cuda")
    x = torch.randn(4, 5, device=device)
    print(safe_zeros_backward(x, 1))
