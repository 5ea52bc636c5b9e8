# devcheck bug corpus: DC101
# From: https://github.com/iscyy/ultralyticsPro/issues/159
# A YOLO loss's target assignment: for each layer it appended torch.ones(len(b))
# * i to a list, concatenated it and indexed the predictions (on the GPU) with
# masks built from it: "indices should be either on cpu or on the same device as
# the indexed tensor". The fix made the layer ids on the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ComputeLossOTA:
    def __init__(self, model):
        self.device = next(model.parameters()).device
        self.bce = nn.BCEWithLogitsLoss()

    def find_positives(self, predictions, indices):
        from_which_layer = []
        all_b = []
        for i, pi in enumerate(predictions):
            b, a, gj, gi = indices[i]
            all_b.append(b)
            from_which_layer.append(torch.ones(size=(len(b),)) * i)  # <- bug
        from_which_layer = torch.cat(from_which_layer, dim=0)
        all_b = torch.cat(all_b, dim=0)
        return from_which_layer, all_b

    def __call__(self, predictions, targets, indices):
        from_which_layer, all_b = self.find_positives(predictions, indices)
        loss = torch.zeros(1, device=self.device)
        for i, pi in enumerate(predictions):
            layer_mask = from_which_layer == i
            b = all_b[layer_mask]
            ps = pi[b]
            loss += self.bce(ps[..., 4], torch.ones_like(ps[..., 4]))
        return loss
