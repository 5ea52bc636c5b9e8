# devcheck bug corpus: DC101
# From: https://github.com/facebookresearch/pytext/pull/297
# A BiLSTM representation added a zero initial state made on the CPU; with the
# embedded tokens on the GPU the LSTM raised "Input and hidden tensors are not
# at the same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class BiLSTM(nn.Module):
    def __init__(self, embed_dim, hidden, layers):
        super().__init__()
        self.layers = layers
        self.hidden = hidden
        self.lstm = nn.LSTM(embed_dim, hidden, layers, bidirectional=True, batch_first=True)

    def forward(self, embedded_tokens, states=None):
        if states is None:
            batch = embedded_tokens.size(0)
            h0 = embedded_tokens.new_zeros(self.layers * 2, batch, self.hidden)  # <- fixed
            c0 = embedded_tokens.new_zeros(self.layers * 2, batch, self.hidden)  # <- fixed
            states = (h0, c0)
        rep, new_state = self.lstm(embedded_tokens, states)
        return rep, new_state
