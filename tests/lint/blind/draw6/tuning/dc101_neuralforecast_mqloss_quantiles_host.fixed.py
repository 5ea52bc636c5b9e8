# devcheck bug corpus: DC101
# From: https://github.com/Nixtla/neuralforecast/issues/307
# From: https://github.com/Nixtla/neuralforecast/pull/311
# The fix (PR #311) turns the losses into nn.Module classes whose quantiles are
# a parameter without gradient, so Lightning moves them with the model.
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def level_to_quantiles(level):
    qs = sorted(set([50] + [50 - l / 2 for l in level] + [50 + l / 2 for l in level]))
    return [q / 100 for q in qs]


class MQLoss(nn.Module):  # <- fixed
    def __init__(self, level=(80, 90)):
        super().__init__()  # <- fixed
        qs = level_to_quantiles(level)
        self.quantiles = nn.Parameter(torch.Tensor(qs), requires_grad=False)  # <- fixed
        self.outputsize_multiplier = len(qs)

    def forward(self, y, y_hat, mask=None):  # <- fixed
        error = y_hat - y.unsqueeze(-1)
        sq = torch.maximum(-error, torch.zeros_like(error))
        s1_q = torch.maximum(error, torch.zeros_like(error))
        mqloss = self.quantiles * sq + (1 - self.quantiles) * s1_q
        if mask is not None:
            mqloss = mqloss * mask.unsqueeze(-1)
        return mqloss.mean()


class MLPForecaster(pl.LightningModule):
    def __init__(self, input_size, h, loss, hidden=256):
        super().__init__()
        self.h = h
        self.loss = loss
        self.net = nn.Sequential(nn.Linear(input_size, hidden), nn.ReLU(), nn.Linear(hidden, h * loss.outputsize_multiplier))

    def forward(self, insample_y):
        return self.net(insample_y).view(insample_y.size(0), self.h, -1)

    def training_step(self, batch, batch_idx):
        insample_y, outsample_y = batch
        y_hat = self(insample_y)
        loss = self.loss(y=outsample_y, y_hat=y_hat)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    series = torch.sin(torch.arange(0, 400, 0.1))
    windows = series.unfold(0, 36, 1)
    data = TensorDataset(windows[:, :24], windows[:, 24:])
    model = MLPForecaster(input_size=24, h=12, loss=MQLoss(level=[80, 90]))
    trainer = pl.Trainer(max_steps=100, accelerator="gpu" if torch.cuda.is_available() else "cpu", devices=1)
    trainer.fit(model, DataLoader(data, batch_size=32, shuffle=True))
