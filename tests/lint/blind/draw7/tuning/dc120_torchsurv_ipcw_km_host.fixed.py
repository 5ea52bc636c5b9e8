# devcheck bug corpus: DC120
# From: https://github.com/Novartis/torchsurv/issues/145
# From: https://github.com/Novartis/torchsurv/pull/147
# The fix: get_ipcw takes the device of the event tensor (moving time and
# new_time there if needed) and builds the Kaplan-Meier estimator with it, so
# its predictions are on the same device as the IPCW tensor.
# Written for devcheck's tests after the thread; not the project's code.
import warnings

import torch
import torch.nn as nn
from torchsurv.loss.cox import neg_partial_log_likelihood
from torchsurv.metrics.cindex import ConcordanceIndex
from torchsurv.stats.kaplan_meier import KaplanMeierEstimator


def _inverse_censoring_dist(ct):
    return torch.ones_like(ct) / ct


def get_ipcw(event, time, new_time=None):
    if new_time is None:
        new_time = time
    device = event.device  # <- fixed
    if time.device != device or new_time.device != device:  # <- fixed
        warnings.warn("Not all tensors on the same device, casting to the event's device")  # <- fixed
        time = time.to(device)  # <- fixed
        new_time = new_time.to(device)  # <- fixed
    km = KaplanMeierEstimator(device=device)  # <- fixed
    km(event, time, censoring_dist=True)
    ct = km.predict(new_time)
    mask = ct > 0
    ipcw = torch.zeros_like(new_time, dtype=time.dtype)
    ipcw[mask] = _inverse_censoring_dist(ct[mask])
    return ipcw


class DeepSurv(nn.Module):
    def __init__(self, n_features):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n, p = 512, 20
    x = torch.randn(n, p).to(device)
    event = torch.randint(0, 2, (n,)).bool().to(device)
    time = torch.rand(n).to(device) * 100

    model = DeepSurv(p).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    cindex = ConcordanceIndex()
    for epoch in range(50):
        log_hz = model(x)
        loss = neg_partial_log_likelihood(log_hz, event, time)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    with torch.no_grad():
        log_hz = model(x)
        weight = get_ipcw(event, time)
        print("Uno's C:", cindex(log_hz, event, time, weight=weight))
