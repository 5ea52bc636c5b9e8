# devcheck bug corpus: DC105
# From: https://github.com/ourownstory/neural_prophet/pull/1473
# The forecasting library's save() pickles the whole fitted forecaster (its
# torch model inside) with torch.save, and load() read it back with
# torch.load(path): a forecaster fitted on a GPU could not be loaded on a
# CPU-only machine ("Attempting to deserialize object on a CUDA device but
# torch.cuda.is_available() is False"). The pull request gives load() a
# map_location argument passed to torch.load; its test loads with "cpu".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class TimeNet(nn.Module):
    def __init__(self, n_lags, n_forecasts):
        super().__init__()
        self.ar = nn.Linear(n_lags, n_forecasts)
        self._trainer = None

    def forward(self, lags):
        return self.ar(lags)


class NeuralProphet:
    def __init__(self, n_lags=14, n_forecasts=7, accelerator="auto"):
        use_gpu = accelerator in ("auto", "gpu") and torch.cuda.is_available()
        self.device = torch.device("cuda" if use_gpu else "cpu")
        self.model = TimeNet(n_lags, n_forecasts).to(self.device)
        self.trainer = None

    def restore_trainer(self):
        self.trainer = object()

    def predict(self, lags):
        device = next(self.model.parameters()).device
        with torch.no_grad():
            return self.model(torch.as_tensor(lags, dtype=torch.float32, device=device)).cpu()


def save(forecaster, path: str):
    removed = forecaster.trainer
    forecaster.trainer = None
    try:
        torch.save(forecaster, path)
    finally:
        forecaster.trainer = removed


def load(path: str):
    m = torch.load(path)  # <- bug
    m.restore_trainer()
    return m


def test_save_load():
    m = NeuralProphet()
    save(m, "test_model.pt")
    m2 = load("test_model.pt")
    forecast2 = m2.predict([[0.0] * 14])
    assert forecast2.shape == (1, 7)
