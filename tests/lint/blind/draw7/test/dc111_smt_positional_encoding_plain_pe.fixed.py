# devcheck bug corpus: DC111
# From: https://github.com/antoniorv6/SMT/pull/6
# Fixed: both tables are registered as non-persistent buffers (made on the CPU,
# left out of the state dict), so model.to(device) moves them with the rest
# of the model and forward uses them where the features are.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from transformers import ConvNextConfig, ConvNextModel


class PositionalEncoding2D(nn.Module):
    def __init__(self, dim, h_max, w_max):
        super().__init__()
        self.register_buffer("pe", torch.zeros((1, dim, h_max, w_max)), persistent=False)  # <- fixed
        div = torch.exp(-torch.arange(0.0, dim // 2, 2) / dim * torch.log(torch.tensor(10000.0))).unsqueeze(1)
        h_pos = torch.arange(0.0, h_max)
        w_pos = torch.arange(0.0, w_max)
        self.pe[:, : dim // 2 : 2] = torch.sin(h_pos * div).unsqueeze(0).unsqueeze(3).repeat(1, 1, 1, w_max)
        self.pe[:, 1 : dim // 2 : 2] = torch.cos(h_pos * div).unsqueeze(0).unsqueeze(3).repeat(1, 1, 1, w_max)
        self.pe[:, dim // 2 :: 2] = torch.sin(w_pos * div).unsqueeze(0).unsqueeze(2).repeat(1, 1, h_max, 1)
        self.pe[:, dim // 2 + 1 :: 2] = torch.cos(w_pos * div).unsqueeze(0).unsqueeze(2).repeat(1, 1, h_max, 1)

    def forward(self, x):
        return x + self.pe[:, :, : x.size(2), : x.size(3)]


class PositionalEncoding1D(nn.Module):
    def __init__(self, dim, len_max):
        super().__init__()
        self.register_buffer("pe", torch.zeros((1, dim, len_max)), persistent=False)  # <- fixed
        div = torch.exp(-torch.arange(0.0, dim, 2) / dim * torch.log(torch.tensor(10000.0))).unsqueeze(1)
        l_pos = torch.arange(0.0, len_max)
        self.pe[:, ::2] = torch.sin(l_pos * div).unsqueeze(0)
        self.pe[:, 1::2] = torch.cos(l_pos * div).unsqueeze(0)

    def forward(self, x, start=0):
        return x + self.pe[:, :, start : start + x.size(2)]  # <- fixed


class SMTModel(nn.Module):
    def __init__(self, d_model=256, maxh=64, maxw=64, maxlen=512, vocab=300):
        super().__init__()
        cfg = ConvNextConfig(num_channels=1, num_stages=3, hidden_sizes=[64, 128, d_model], depths=[3, 3, 9])
        self.encoder = ConvNextModel(cfg)
        self.pos2D = PositionalEncoding2D(d_model, maxh, maxw)
        self.embedding = nn.Embedding(vocab, d_model)
        self.pos1D = PositionalEncoding1D(d_model, maxlen)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(d_model, 8, batch_first=True), 4)
        self.out = nn.Linear(d_model, vocab)

    def forward(self, image, tokens):
        feats = self.encoder(pixel_values=image).last_hidden_state
        feats = self.pos2D(feats)
        memory = torch.flatten(feats, start_dim=2).permute(0, 2, 1)
        emb = self.embedding(tokens).permute(0, 2, 1)
        emb = self.pos1D(emb).permute(0, 2, 1)
        return self.out(self.decoder(emb, memory))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--weights", default="smt_grandstaff.pt")
    args = parser.parse_args()
    device = torch.device(args.device)
    model = SMTModel()
    model.load_state_dict(torch.load(args.weights, map_location="cpu"))
    model.to(device).eval()
    image = torch.rand(1, 1, 256, 512, device=device)
    tokens = torch.zeros(1, 1, dtype=torch.long, device=device)
    with torch.no_grad():
        logits = model(image, tokens)
    print(logits.argmax(-1))


if __name__ == "__main__":
    main()
