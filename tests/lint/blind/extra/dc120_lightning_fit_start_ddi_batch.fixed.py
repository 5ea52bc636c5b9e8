# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/13444
# Fixed: the batch the hook takes from the loader is moved to the model's
# device before forward.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import pytorch_lightning as pl


class FlowTTS(pl.LightningModule):
    def __init__(self, n_symbols, n_mels, ddi=True):
        super().__init__()
        self.ddi = ddi
        self.emb = nn.Embedding(n_symbols, 192)
        self.proj = nn.Linear(192, n_mels)

    def forward(self, x, x_lengths, y, y_lengths):
        h = self.emb(x) * torch.sqrt(torch.tensor(192.0))
        return self.proj(h)

    def on_fit_start(self):
        if self.ddi:
            for batch in self.trainer.datamodule.train_dataloader():
                x, x_lengths, y, y_lengths = [t.to(self.device) for t in batch]  # <- fixed
                with torch.no_grad():
                    self.forward(x, x_lengths, y, y_lengths)  # <- fixed
                break

    def training_step(self, batch, batch_idx):
        x, x_lengths, y, y_lengths = batch
        return ((self(x, x_lengths, y, y_lengths) - y) ** 2).mean()
