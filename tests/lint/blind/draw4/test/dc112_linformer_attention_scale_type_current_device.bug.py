# devcheck bug corpus: DC112
# From: https://github.com/tatp22/linformer-pytorch/issues/22
# From: https://github.com/tatp22/linformer-pytorch/commit/f10226a6918cae0d5d72b392897a702ae30c6e36
# The Linformer attention head scales the scores by sqrt(dim), a tensor cast with
# .type(Q.type()): a "torch.cuda.FloatTensor" type string carries no device index, so
# the scale lands on the current CUDA device (cuda:0) while each DistributedDataParallel
# process runs on its own GPU: "found at least two devices, cuda:1 and cuda:0".
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class LinearAttentionHead(nn.Module):
    def __init__(self, dim, dropout, E_proj, F_proj):
        super().__init__()
        self.E = E_proj
        self.F = F_proj
        self.dim = dim
        self.dropout = nn.Dropout(dropout)

    def forward(self, Q, K, V):
        K = self.E(K.transpose(1, 2))
        Q = torch.matmul(Q, K)
        P_bar = Q / torch.sqrt(torch.tensor(self.dim).type(Q.type()))  # <- bug
        P_bar = self.dropout(P_bar.softmax(dim=-1))
        V = self.F(V.transpose(1, 2)).transpose(1, 2)
        return torch.matmul(P_bar, V)


class Linformer(nn.Module):
    def __init__(self, input_size=512, channels=128, dim_k=64, dropout=0.1):
        super().__init__()
        self.to_q = nn.Linear(channels, channels)
        self.to_k = nn.Linear(channels, channels)
        self.to_v = nn.Linear(channels, channels)
        self.head = LinearAttentionHead(channels, dropout, nn.Linear(input_size, dim_k), nn.Linear(input_size, dim_k))
        self.out = nn.Linear(channels, channels)

    def forward(self, x):
        return self.out(self.head(self.to_q(x), self.to_k(x), self.to_v(x)))


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    model = Linformer().to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(10):
        x = torch.randn(8, 512, 128, device=device)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
