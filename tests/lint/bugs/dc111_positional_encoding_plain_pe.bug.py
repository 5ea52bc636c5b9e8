# devcheck bug corpus: DC111
# From: https://github.com/wenet-e2e/wenet/pull/2413
# The positional encoding keeps self.pe = torch.zeros(max_len, d_model) as a
# plain attribute and moves it in forward with self.pe = self.pe.to(x.device);
# under FSDP the plain attribute breaks. A buffer moves with the module.
# Written for devcheck's tests after the thread; not the project's code.
import math
import torch


class PositionalEncoding(torch.nn.Module):
    def __init__(self, d_model, dropout_rate, max_len=5000):
        super().__init__()
        self.d_model = d_model
        self.xscale = math.sqrt(self.d_model)
        self.dropout = torch.nn.Dropout(p=dropout_rate)
        self.pe = torch.zeros(max_len, d_model)  # <- bug
        position = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / d_model))
        self.pe[:, 0::2] = torch.sin(position * div_term)
        self.pe[:, 1::2] = torch.cos(position * div_term)
        self.pe = self.pe.unsqueeze(0)  # <- bug

    def forward(self, x, offset=0):
        self.pe = self.pe.to(x.device)
        pos_emb = self.pe[:, offset:offset + x.size(1)]
        return self.dropout(x * self.xscale + pos_emb), pos_emb
