# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/18831
# With the training_step(dataloader_iter) form of Lightning 2.1, the step
# takes its batch from the iterator itself and Lightning no longer moves it:
# the tutorial's autoencoder, changed to that form, gave its encoder (on the
# GPU) a batch still on the CPU. The batch must be moved in the step.
# Written for devcheck's tests after the thread; not the project's code.
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
import lightning.pytorch as pl


class LitAutoEncoder(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, 28 * 28))

    def training_step(self, dataloader_iter):
        batch, batch_idx, dataloader_idx = next(dataloader_iter)
        x, y = batch
        x = x.view(x.size(0), -1)
        z = self.encoder(x)  # <- bug
        x_hat = self.decoder(z)
        loss = F.mse_loss(x_hat, x)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return optim.Adam(self.parameters(), lr=1e-3)
