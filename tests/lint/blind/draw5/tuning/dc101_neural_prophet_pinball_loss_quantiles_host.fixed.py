# devcheck bug corpus: DC101
# From: https://github.com/ourownstory/neural_prophet/issues/1002
# From: https://github.com/ourownstory/neural_prophet/pull/1010
# The fix makes the loss's tensors on the target's device
# (device=target.device) and the forward's accumulators on the module's
# (device=self.device).
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.nn.modules.loss import _Loss
from torch.utils.data import DataLoader, TensorDataset


class PinballLoss(_Loss):
    def __init__(self, loss_func, quantiles):
        super().__init__()
        self.loss_func = loss_func
        self.quantiles = quantiles

    def forward(self, outputs, target):
        target = target.repeat(1, 1, len(self.quantiles))
        differences = target - outputs
        base_losses = self.loss_func(outputs, target)
        positive_losses = torch.tensor(self.quantiles, device=target.device).unsqueeze(dim=0).unsqueeze(dim=0) * base_losses  # <- fixed
        negative_losses = (1 - torch.tensor(self.quantiles, device=target.device).unsqueeze(dim=0).unsqueeze(dim=0)) * base_losses  # <- fixed
        pinball_losses = torch.where(differences >= 0, positive_losses, negative_losses)
        multiplier = torch.ones(size=(1, 1, len(self.quantiles)), device=target.device)  # <- fixed
        multiplier[:, :, 0] = 2
        return multiplier * pinball_losses


class TimeNet(pl.LightningModule):
    def __init__(self, n_lags=12, n_forecasts=3, quantiles=(0.5, 0.1, 0.9)):
        super().__init__()
        self.n_forecasts = n_forecasts
        self.quantiles = list(quantiles)
        self.ar_net = nn.Linear(n_lags, n_forecasts * len(self.quantiles))
        self.trend_net = nn.Linear(1, n_forecasts * len(self.quantiles))
        self.loss_func = PinballLoss(nn.SmoothL1Loss(reduction="none"), self.quantiles)

    def forward(self, time, lags):
        additive_components = torch.zeros(size=(time.shape[0], self.n_forecasts, len(self.quantiles)), device=self.device)  # <- fixed
        additive_components = additive_components + self.ar_net(lags).view(-1, self.n_forecasts, len(self.quantiles))
        trend = self.trend_net(time).view(-1, self.n_forecasts, len(self.quantiles))
        return trend + additive_components

    def training_step(self, batch, batch_idx):
        time, lags, targets = batch
        predicted = self.forward(time, lags)
        loss = self.loss_func(predicted, targets.unsqueeze(-1)).mean()
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    data = TensorDataset(torch.rand(256, 1), torch.randn(256, 12), torch.randn(256, 3))
    trainer = pl.Trainer(max_epochs=2, accelerator="gpu" if torch.cuda.is_available() else "cpu", devices=1)
    trainer.fit(TimeNet(), DataLoader(data, batch_size=32, shuffle=True))
