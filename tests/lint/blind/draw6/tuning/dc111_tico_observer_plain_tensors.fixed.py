# devcheck bug corpus: DC111
# From: https://github.com/Samsung/TICO/issues/443
# The fix makes the observers nn.Modules and registers their statistics and
# cached qparams as buffers, updated in place: model.to(device) now walks into
# the wrapper's observers and moves them with the layer.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ObserverBase(nn.Module):  # <- fixed
    def __init__(self, name, channels, qmax=255):
        super().__init__()  # <- fixed
        self.name = name
        self.channels = channels
        self.qmax = qmax
        self.enabled = True
        self.reset()

    def reset(self):
        self.register_buffer("min_val", torch.full((self.channels,), float("inf")))  # <- fixed
        self.register_buffer("max_val", torch.full((self.channels,), float("-inf")))  # <- fixed
        self.register_buffer("_cached_scale", torch.ones(self.channels))  # <- fixed
        self.register_buffer("_cached_zp", torch.zeros(self.channels))  # <- fixed

    def collect(self, x):
        if not self.enabled:
            return
        flat = x.detach().reshape(-1, self.channels)
        self.min_val.copy_(torch.minimum(self.min_val, flat.min(0).values))  # <- fixed
        self.max_val.copy_(torch.maximum(self.max_val, flat.max(0).values))  # <- fixed

    def compute_qparams(self):
        scale = (self.max_val - self.min_val).clamp(min=1e-8) / self.qmax
        zp = torch.round(-self.min_val / scale)
        self._cached_scale.copy_(scale)  # <- fixed
        self._cached_zp.copy_(zp)  # <- fixed
        return scale, zp

    def fake_quant(self, x):
        q = torch.clamp(torch.round(x / self._cached_scale) + self._cached_zp, 0, self.qmax)
        return (q - self._cached_zp) * self._cached_scale


class QuantLinear(nn.Module):
    def __init__(self, fp: nn.Linear):
        super().__init__()
        self.module = fp
        self.obs_act_out = ObserverBase("act_out", fp.out_features)
        self.mode = "calib"

    def forward(self, x):
        y = self.module(x)
        if self.mode == "calib":
            self.obs_act_out.collect(y)
            return y
        return self.obs_act_out.fake_quant(y)

    def freeze_qparams(self):
        self.obs_act_out.compute_qparams()
        self.mode = "quant"


def calibrate_then_evaluate(calib_batches, eval_batches):
    model = nn.Sequential(QuantLinear(nn.Linear(64, 128)), nn.ReLU(), QuantLinear(nn.Linear(128, 10)))
    with torch.no_grad():
        for x in calib_batches:
            model(x)
    for m in model.modules():
        if isinstance(m, QuantLinear):
            m.freeze_qparams()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    with torch.no_grad():
        return [model(x.to(device)).argmax(-1) for x in eval_batches]
