# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/fairseq/pull/745
# Fixed: forward moves the table with .to(self._float_tensor), which takes the
# buffer's device (cuda:1) as well as its dtype, so the table sits where the
# model is.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import math

import torch
import torch.nn as nn


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim, padding_idx, init_size=1024):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.weights = self.get_embedding(init_size, embedding_dim, padding_idx)
        self.register_buffer("_float_tensor", torch.FloatTensor(1))

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim, padding_idx):
        half = embedding_dim // 2
        step = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -step)
        angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
        table[padding_idx, :] = 0
        return table

    def forward(self, tokens):
        bsz, seq_len = tokens.shape
        max_pos = self.padding_idx + 1 + seq_len
        if max_pos > self.weights.size(0):
            self.weights = self.get_embedding(max_pos, self.embedding_dim, self.padding_idx)
        self.weights = self.weights.to(self._float_tensor)  # <- fixed
        mask = tokens.ne(self.padding_idx).long()
        positions = torch.cumsum(mask, dim=1) * mask + self.padding_idx
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1)


class Encoder(nn.Module):
    def __init__(self, vocab_size, dim, padding_idx=1):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim, padding_idx=padding_idx)
        self.embed_positions = SinusoidalPositionalEmbedding(dim, padding_idx)
        self.layer = nn.TransformerEncoderLayer(dim, nhead=4, batch_first=True)

    def forward(self, tokens):
        x = self.embed_tokens(tokens) * math.sqrt(self.embed_tokens.embedding_dim)
        x = x + self.embed_positions(tokens)
        return self.layer(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device-id", type=int, default=1)
    args = parser.parse_args()
    device = torch.device("cuda", args.device_id)
    model = Encoder(vocab_size=1000, dim=64).to(device)
    tokens = torch.randint(2, 1000, (8, 20), device=device)
    out = model(tokens)
    print(out.shape)


if __name__ == "__main__":
    main()
