# devcheck bug corpus: DC111
# From: https://github.com/OpenNMT/OpenNMT-py/pull/240
# The Transformer decoder built its subsequent-position mask with NumPy and
# meant to keep it as a buffer so that it would follow the decoder to the
# GPU, but it first stored the mask as a plain attribute (self.mask = ...)
# and then called register_buffer with the same name; the torch of the time
# accepted that silently and the plain attribute shadowed the buffer, so the
# mask stayed on the CPU when the model was moved and was added to the GPU
# padding mask in forward.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn

MAX_SIZE = 5000


class TransformerDecoderLayer(nn.Module):
    def __init__(self, size, dropout, head_count=8, hidden_size=2048):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(size, head_count, dropout=dropout, batch_first=True)
        self.context_attn = nn.MultiheadAttention(size, head_count, dropout=dropout, batch_first=True)
        self.feed_forward = nn.Sequential(nn.Linear(size, hidden_size), nn.ReLU(),
                                          nn.Linear(hidden_size, size))
        self.dropout = dropout
        self.mask = self._get_attn_subsequent_mask(MAX_SIZE)  # <- bug
        # keep the mask as a buffer so that it follows the decoder's device
        self.register_buffer("mask", self.mask)

    def forward(self, inputs, context, src_pad_mask, tgt_pad_mask):
        t_len = tgt_pad_mask.size(1)
        dec_mask = torch.gt(tgt_pad_mask + self.mask[:, :t_len, :t_len].expand_as(tgt_pad_mask), 0)
        heads = self.self_attn.num_heads
        query, _ = self.self_attn(inputs, inputs, inputs,
                                  attn_mask=dec_mask.repeat_interleave(heads, 0))
        mid, attn = self.context_attn(query, context, context,
                                      attn_mask=src_pad_mask.repeat_interleave(heads, 0))
        return self.feed_forward(mid), attn

    def _get_attn_subsequent_mask(self, size):
        attn_shape = (1, size, size)
        subsequent_mask = np.triu(np.ones(attn_shape), k=1).astype("uint8")
        return torch.from_numpy(subsequent_mask)


if __name__ == "__main__":
    layer = TransformerDecoderLayer(64, 0.1, head_count=4).cuda()
    x = torch.randn(2, 7, 64).cuda()
    ctx = torch.randn(2, 9, 64).cuda()
    src_pad = torch.zeros(2, 7, 9, dtype=torch.uint8).cuda()
    tgt_pad = torch.zeros(2, 7, 7, dtype=torch.uint8).cuda()
    out, _ = layer(x, ctx, src_pad.bool(), tgt_pad)
