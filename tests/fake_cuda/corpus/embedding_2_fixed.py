# kind: embedding-index
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/pytorch/text/pull/1944
# fix: create the position ranges with device=self.relative_attention_bias.weight.device
"""T5-style relative position bias: bucket ids are computed from
torch.arange ranges and looked up in an nn.Embedding on the model's device."""
import math

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class RelativePositionBias(nn.Module):
    def __init__(self, num_buckets=8, max_distance=16, heads=2, bidirectional=True):
        super().__init__()
        self.num_buckets, self.max_distance, self.bidirectional = num_buckets, max_distance, bidirectional
        self.relative_attention_bias = nn.Embedding(num_buckets, heads)

    def _relative_position_bucket(self, relative_position):
        buckets = 0
        num_buckets = self.num_buckets
        if self.bidirectional:
            num_buckets //= 2
            buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        large = max_exact + (torch.log(relative_position.float() / max_exact)
                             / math.log(self.max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, num_buckets - 1))
        return buckets + torch.where(is_small, relative_position, large)

    def forward(self, query_length, key_length):
        weight_device = self.relative_attention_bias.weight.device
        context_position = torch.arange(query_length, dtype=torch.long, device=weight_device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=weight_device)[None, :]
        bucket = self._relative_position_bucket(memory_position - context_position)
        values = self.relative_attention_bias(bucket)
        return values.permute(2, 0, 1).unsqueeze(0)


class TinyAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.bias = RelativePositionBias(heads=heads)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) + self.bias(n, n)
        return (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)


model = TinyAttention().to(device)
x = torch.randn(2, 5, 8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 5))
