# devcheck bug corpus: DC101
# From: https://github.com/Nixtla/neuralforecast/issues/522
# From: https://github.com/Nixtla/neuralforecast/pull/523
# Fixed: the horizon's block of zeros is moved to the device of the
# observed values before it is concatenated with them.
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
import torch.nn as nn


class SeriesDecomp(nn.Module):
    def __init__(self, kernel=25):
        super().__init__()
        self.avg = nn.AvgPool1d(kernel_size=kernel, stride=1, padding=kernel // 2, count_include_pad=False)

    def forward(self, x):
        trend = self.avg(x.transpose(1, 2)).transpose(1, 2)
        return x - trend, trend


class TinyAutoformer(pl.LightningModule):
    def __init__(self, h=12, input_size=48, label_len=24, hidden=32):
        super().__init__()
        self.h = h
        self.input_size = input_size
        self.label_len = label_len
        self.decomp = SeriesDecomp()
        self.enc = nn.GRU(1, hidden, batch_first=True)
        self.dec = nn.GRU(1, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, 1)

    def forward(self, windows_batch):
        insample_y = windows_batch["insample_y"].unsqueeze(-1)
        x_dec = torch.zeros(size=(len(insample_y), self.h, 1)).to(insample_y.device)  # <- fixed
        x_dec = torch.cat([insample_y[:, -self.label_len:, :], x_dec], dim=1)
        mean = insample_y.mean(dim=1, keepdim=True).repeat(1, self.h, 1)
        zeros = torch.zeros([x_dec.shape[0], self.h, x_dec.shape[2]], device=insample_y.device)
        seasonal, trend = self.decomp(insample_y)
        trend_init = torch.cat([trend[:, -self.label_len:, :], mean], dim=1)
        seasonal_init = torch.cat([seasonal[:, -self.label_len:, :], zeros], dim=1)
        _, state = self.enc(insample_y)
        dec_out, _ = self.dec(seasonal_init + x_dec, state)
        return (self.proj(dec_out) + trend_init)[:, -self.h:, 0]

    def training_step(self, batch, batch_idx):
        y_hat = self(batch)
        loss = nn.functional.l1_loss(y_hat, batch["outsample_y"])
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class Windows(torch.utils.data.Dataset):
    def __init__(self, series, input_size=48, h=12):
        self.series, self.input_size, self.h = series, input_size, h

    def __len__(self):
        return len(self.series) - self.input_size - self.h

    def __getitem__(self, i):
        w = self.series[i:i + self.input_size + self.h]
        return {"insample_y": w[:self.input_size], "outsample_y": w[self.input_size:]}


series = torch.sin(torch.arange(2000, dtype=torch.float32) / 10)
loader = torch.utils.data.DataLoader(Windows(series), batch_size=32, shuffle=True)
trainer = pl.Trainer(accelerator="auto", max_epochs=1)
trainer.fit(TinyAutoformer(), loader)
