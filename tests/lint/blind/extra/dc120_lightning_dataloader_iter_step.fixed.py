# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/18831
# Fixed: the step moves the batch it took from the iterator to the module's
# device.
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
        x = x.to(self.device)  # <- fixed
        x = x.view(x.size(0), -1)
        z = self.encoder(x)  # <- fixed
        x_hat = self.decoder(z)
        loss = F.mse_loss(x_hat, x)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return optim.Adam(self.parameters(), lr=1e-3)
