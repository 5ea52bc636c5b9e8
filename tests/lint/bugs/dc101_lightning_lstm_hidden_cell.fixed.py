# devcheck bug corpus: DC101
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/3738
# A character-level LSTM in a LightningModule starts each training step with
# hidden and cell states made by torch.zeros, which land on the CPU while the
# module runs on the GPU: "Input and hidden tensors are not at the same
# device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import pytorch_lightning as pl


class CharRNN(pl.LightningModule):
    def __init__(self, vocab, hidden, layers):
        super().__init__()
        self.layers = layers
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, hidden, layers)
        self.head = nn.Linear(hidden, vocab)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, letters, hidden, cell):
        out, (hidden, cell) = self.lstm(self.embed(letters), (hidden, cell))
        return self.head(out), hidden, cell

    def training_step(self, batch, batch_idx):
        letters, targets = batch
        hidden = torch.zeros(self.layers, letters.size(1), self.hidden, device=self.device)  # <- fixed
        cell = torch.zeros(self.layers, letters.size(1), self.hidden, device=self.device)  # <- fixed
        logits, hidden, cell = self(letters, hidden, cell)
        return self.criterion(logits.view(-1, logits.size(-1)), targets.view(-1))
