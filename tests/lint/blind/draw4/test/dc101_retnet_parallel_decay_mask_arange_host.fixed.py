# devcheck bug corpus: DC101
# From: https://github.com/syncdoth/RetNet/issues/1
# From: https://github.com/syncdoth/RetNet/commit/48a3984008db3daaf564fbd748006517aeb660ee
# The fix (commit 48a3984, "handle decay device") makes both aranges on the decay
# parameter's device (device=self.decay.device / decay_mask.device).
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class RetNetConfig:
    hidden_size: int = 512
    num_heads: int = 4
    chunk_size: int = 4


class MultiScaleRetention(nn.Module):
    def __init__(self, config: RetNetConfig):
        super().__init__()
        self.config = config
        self.qkv = nn.Linear(config.hidden_size, config.hidden_size * 3, bias=False)
        self.proj = nn.Linear(config.hidden_size, config.hidden_size)
        s = torch.log(torch.tensor(1 / 32))
        e = torch.log(torch.tensor(1 / 512))
        gamma = 1 - torch.exp(torch.linspace(s, e, config.num_heads))
        self.decay = nn.Parameter(gamma, requires_grad=False)

    def get_parallel_decay_mask(self, length):
        range_tensor = torch.arange(length, device=self.decay.device)  # <- fixed
        range_tensor = range_tensor[None, :, None].expand(self.config.num_heads, length, 1)
        exponent = range_tensor - range_tensor.transpose(-1, -2)
        decay_mask = self.decay.view(-1, 1, 1) ** exponent
        return torch.tril(decay_mask, diagonal=0)

    def get_chunkwise_decay(self, chunk_size):
        decay_mask = self.get_parallel_decay_mask(chunk_size)
        chunk_decay = self.decay.view(1, self.config.num_heads, 1, 1) ** chunk_size
        exponent = torch.arange(chunk_size, dtype=torch.float, device=decay_mask.device).unsqueeze(0) + 1  # <- fixed
        inner_decay = (self.decay.unsqueeze(-1) ** exponent).view(1, self.config.num_heads, chunk_size, 1)
        return decay_mask, chunk_decay, inner_decay

    def forward(self, x):
        b, t, d = x.shape
        h = self.config.num_heads
        q, k, v = self.qkv(x).view(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        decay_mask = self.get_parallel_decay_mask(t)
        retention = (q @ k.transpose(-1, -2)) * k.size(-1) ** -0.5 * decay_mask
        out = (retention @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


if __name__ == "__main__":
    config = RetNetConfig()
    model = MultiScaleRetention(config)
    model.eval()
    device = "cuda"
    model = model.to(device)
    x = torch.randn(2, 16, config.hidden_size, device=device)
    print(model(x).shape, [d.shape for d in model.get_chunkwise_decay(config.chunk_size)])
