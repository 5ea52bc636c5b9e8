# devcheck bug corpus: DC105
# From: https://github.com/aistairc/market-reporter/pull/13
# Fixed: the model's state dict is loaded with map_location=self.device (the
# vocabulary load, which holds no tensors, is left as it was).
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import errno
import os
from pathlib import Path

import torch
import torch.nn as nn


class EncoderDecoder(nn.Module):
    def __init__(self, vocab_size, hidden, device):
        super().__init__()
        self.device = device
        self.encoder = nn.GRU(8, hidden, batch_first=True)
        self.embed = nn.Embedding(vocab_size, hidden)
        self.decoder = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, prices, bos_id, max_len=20):
        _, h = self.encoder(prices)
        h = h[0]
        token = torch.full((prices.size(0),), bos_id, dtype=torch.long, device=self.device)
        tokens = []
        for _ in range(max_len):
            h = self.decoder(self.embed(token), h)
            token = self.out(h).argmax(-1)
            tokens.append(token)
        return torch.stack(tokens, 1)


class Predictor:
    def __init__(self, device: torch.device, output: Path):
        self.device = device
        dest_pretrained_model = output / Path("reporter.model")
        dest_train_vocab = output / Path("reporter.vocab")
        for p in (dest_pretrained_model, dest_train_vocab):
            if not p.is_file():
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(p))
        with dest_train_vocab.open("rb") as f:
            self.vocab = torch.load(f)
        self.model = EncoderDecoder(len(self.vocab), 256, self.device)
        with dest_pretrained_model.open(mode="rb") as f:
            self.model.load_state_dict(torch.load(f, map_location=self.device))  # <- fixed
        self.model.to(self.device)

    def predict(self, prices):
        self.model.eval()
        with torch.no_grad():
            ids = self.model(prices.to(self.device), self.vocab.stoi["<s>"])
        return [[self.vocab.itos[i] for i in row] for row in ids.tolist()]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="reporter.predict")
    parser.add_argument("--device", type=str, default="cpu")
    parser.add_argument("-o", "--output", type=str, default="output")
    args = parser.parse_args()
    predictor = Predictor(torch.device(args.device), Path(args.output))
    print(predictor.predict(torch.randn(1, 60, 8)))
