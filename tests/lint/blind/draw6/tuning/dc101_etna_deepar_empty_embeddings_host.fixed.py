# devcheck bug corpus: DC101
# From: https://github.com/etna-team/etna/issues/611
# The fix makes the empty stand-in embeddings with device= of the real-valued
# inputs, so the concat stays on the batch's device.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, Optional, Tuple

import lightning.pytorch as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class MultiEmbedding(nn.Module):
    def __init__(self, embedding_sizes: Dict[str, Tuple[int, int]]):
        super().__init__()
        self.embedding = nn.ModuleDict({k: nn.Embedding(n + 1, d) for k, (n, d) in embedding_sizes.items()})

    def forward(self, x):
        return torch.concat([self.embedding[k](v.squeeze(-1).long()) for k, v in x.items()], dim=2)


class DeepARNet(pl.LightningModule):
    def __init__(self, input_size, hidden_size=16, num_layers=2, embedding_sizes=None, lr=1e-3):
        super().__init__()
        self.embedding_sizes = embedding_sizes or {}
        self.cat_size = sum(d for (_, d) in self.embedding_sizes.values())
        self.embedding: Optional[MultiEmbedding] = MultiEmbedding(self.embedding_sizes) if self.embedding_sizes else None
        self.rnn = nn.LSTM(input_size=input_size + self.cat_size, hidden_size=hidden_size, num_layers=num_layers, batch_first=True)
        self.loc = nn.Linear(hidden_size, 1)
        self.scale = nn.Sequential(nn.Linear(hidden_size, 1), nn.Softplus())
        self.lr = lr

    def _values(self, real, categorical):
        embeddings = (
            self.embedding(categorical)
            if self.embedding is not None
            else torch.zeros((real.shape[0], real.shape[1], 0), device=real.device)  # <- fixed
        )
        return torch.concat((real, embeddings), dim=2)

    def step(self, batch):
        encoder_real = batch["encoder_real"].float()
        decoder_real = batch["decoder_real"].float()
        encoder_values = self._values(encoder_real, batch["encoder_categorical"])
        decoder_values = self._values(decoder_real, batch["decoder_categorical"])
        target = torch.cat((batch["encoder_target"].float(), batch["decoder_target"].float()), dim=1)
        output, _ = self.rnn(torch.cat((encoder_values, decoder_values), dim=1))
        loc, scale = self.loc(output), self.scale(output)
        loss = -torch.distributions.Normal(loc, scale).log_prob(target).mean()
        return loss

    def training_step(self, batch, batch_idx):
        loss = self.step(batch)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class WindowDataset(Dataset):
    def __init__(self, series, encoder_length=14, decoder_length=7):
        self.series, self.e, self.d = series, encoder_length, decoder_length

    def __len__(self):
        return len(self.series) - self.e - self.d

    def __getitem__(self, i):
        w = self.series[i: i + self.e + self.d].unsqueeze(-1)
        return {
            "encoder_real": w[: self.e - 1], "decoder_real": w[self.e - 1: -1],
            "encoder_categorical": {}, "decoder_categorical": {},
            "encoder_target": w[1: self.e], "decoder_target": w[self.e:],
        }


if __name__ == "__main__":
    net = DeepARNet(input_size=1)
    data = WindowDataset(torch.sin(torch.arange(0, 100, 0.1)))
    trainer = pl.Trainer(accelerator="gpu" if torch.cuda.is_available() else "cpu", devices=1, max_epochs=1)
    trainer.fit(net, DataLoader(data, batch_size=16, shuffle=True))
