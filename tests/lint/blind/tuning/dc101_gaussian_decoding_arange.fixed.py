# devcheck bug corpus: DC101
# From: https://github.com/wyf0912/ContextGS/pull/11
# A Gaussian-splatting model's decoding steps took chunk indices from
# torch.arange without device= and used them on the anchors' features (on the
# GPU). The fix passed device=to_code.device to each arange.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class GaussianModel(nn.Module):
    def __init__(self, n_anchor, dim):
        super().__init__()
        self.anchor_feat = nn.Parameter(torch.zeros(n_anchor, dim))
        self.mlp = nn.Linear(dim, dim)

    def encode_process(self, to_code, chunk):
        outputs = []
        for start in range(0, to_code.shape[0], chunk):
            idx = torch.arange(start, min(start + chunk, to_code.shape[0]), device=to_code.device)  # <- fixed
            outputs.append(self.mlp(to_code[idx]))
        return torch.cat(outputs)

    def forward(self):
        return self.encode_process(self.anchor_feat, 4096)
