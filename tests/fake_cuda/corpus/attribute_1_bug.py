# kind: plain-attribute
# source: https://github.com/rasbt/LLMs-from-scratch/blob/main/ch03/03_understanding-buffers/understanding-buffers.ipynb
# fix: self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
# expect: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# message-1.13: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# message-2.x: expected self and mask to be on the same device, but got mask on cpu and self on cuda:0
# sanitizer: mismatch
"""Causal self-attention whose mask is a plain tensor attribute made in
__init__; model.to(device) moves the Linear layers but not the mask."""
import torch
from torch import nn

torch.manual_seed(123)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class CausalAttentionWithoutBuffers(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)  # BUG:stray

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)  # BUG:op
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return self.dropout(attn_weights) @ values


inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])
batch = torch.stack((inputs, inputs), dim=0)
ca_without_buffer = CausalAttentionWithoutBuffers(3, 2, batch.shape[1], 0.0)
ca_without_buffer.to(device)
with torch.no_grad():
    context_vecs = ca_without_buffer(batch.to(device))
print(context_vecs.cpu())
