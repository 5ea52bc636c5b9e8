# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/13444
# A flow-based TTS model did a data-dependent initialisation in on_fit_start:
# it iterated the datamodule's training loader itself and ran forward on the
# first batch. Lightning moves only the batches it feeds to the step methods,
# so that batch was on the CPU while the model was on the GPU: "Expected all
# tensors to be on the same device ... (when checking argument for argument
# index in method wrapper__index_select)". The batch must be moved there.
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
                x, x_lengths, y, y_lengths = batch
                with torch.no_grad():
                    self.forward(x, x_lengths, y, y_lengths)  # <- bug
                break

    def training_step(self, batch, batch_idx):
        x, x_lengths, y, y_lengths = batch
        return ((self(x, x_lengths, y, y_lengths) - y) ** 2).mean()
