# devcheck bug corpus: DC120
# From: https://github.com/skorch-dev/skorch/issues/734
# A class-weighted classifier multiplied the unreduced loss (on the GPU) by the
# sample weights taken from the input dict X, which skorch leaves where the
# batch was: "expected device cpu but got device cuda:0". The fix moved the
# weights to the net's device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from skorch import NeuralNetClassifier
from skorch.utils import to_tensor


class WeightedNet(NeuralNetClassifier):
    def __init__(self, *args, criterion__reduce=False, **kwargs):
        super().__init__(*args, criterion__reduce=criterion__reduce, **kwargs)

    def get_loss(self, y_pred, y_true, X, *args, **kwargs):
        loss_unreduced = super().get_loss(y_pred, y_true, X, *args, **kwargs)
        sample_weight = to_tensor(X["sample_weight"], device=self.device)  # <- fixed
        return (sample_weight * loss_unreduced).mean()


def fit(module, X, y):
    net = WeightedNet(module, device="cuda", max_epochs=5)
    net.fit({"X": X, "sample_weight": np.ones(len(y), dtype=np.float32)}, y)
