# devcheck bug corpus: DC105
# From: https://github.com/ourownstory/neural_prophet/pull/1473
# Fixed: load(path, map_location=None) passes torch.device(map_location) to
# torch.load, and the test also loads the saved forecaster with "cpu".
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


def load(path: str, map_location=None):  # <- fixed
    if map_location is not None:  # <- fixed
        map_location = torch.device(map_location)  # <- fixed
    m = torch.load(path, map_location=map_location)  # <- fixed
    m.restore_trainer()
    return m


def test_save_load():
    m = NeuralProphet()
    save(m, "test_model.pt")
    m2 = load("test_model.pt")
    forecast2 = m2.predict([[0.0] * 14])
    assert forecast2.shape == (1, 7)
    m3 = load("test_model.pt", map_location="cpu")  # <- fixed
    forecast3 = m3.predict([[0.0] * 14])  # <- fixed
    assert forecast3.shape == (1, 7)  # <- fixed
