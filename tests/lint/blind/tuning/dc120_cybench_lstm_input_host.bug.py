# devcheck bug corpus: DC120
# From: https://github.com/WUR-AI/AgML-CY-Bench/pull/236
# A crop-yield LSTM model moved to CUDA received, in forward, the time series
# produced by its own transforms on the host: "inputs and model are in
# different devices". The fix moved the input to the model's device inside
# forward.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ExampleLSTM(nn.Module):
    def __init__(self, n_ts_features, hidden_size, n_static, output_size):
        super().__init__()
        self._lstm = nn.LSTM(n_ts_features, hidden_size, batch_first=True)
        self._fc = nn.Linear(hidden_size + n_static, output_size)

    def forward(self, x):
        x_ts = torch.as_tensor(x["ts"], dtype=torch.float32)  # <- bug
        x_ts, _ = self._lstm(x_ts)  # <- bug
        x_static = x["static"].to(x_ts.device)
        return self._fc(torch.cat([x_ts[:, -1], x_static], dim=1))


def fit(model, batches, device):
    model.to(device)
    for batch in batches:
        model(batch)
