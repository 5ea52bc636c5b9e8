# devcheck bug corpus: DC111
# From: https://github.com/Lineves7/EMNet/issues/1
# A memory network kept the indices of its top memories in a plain tensor
# attribute made in __init__; test.py moved the model with .cuda() but the plain
# attribute stayed on the host, and indexing it with the CUDA top-k indices
# failed: "indices should be either on cpu or on the same device as the indexed
# tensor (cpu)". The fix moved it (a buffer keeps it with the module).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Memory(nn.Module):
    def __init__(self, mem_size, dim):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(mem_size, dim))
        self.top_index = torch.zeros(mem_size, dtype=torch.long)  # <- bug

    def topk_feature(self, query, k):
        scores = query @ self.keys.t()
        _, topk_index = scores.topk(k, dim=1)
        return torch.cat([self.top_index[topk_index[i]].unsqueeze(0) for i in range(query.size(0))], dim=0)  # <- bug


def main():
    model = Memory(512, 64).cuda()
    query = torch.randn(4, 64).cuda()
    print(model.topk_feature(query, 5))
