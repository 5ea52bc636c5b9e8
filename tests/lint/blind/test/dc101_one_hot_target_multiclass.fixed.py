# devcheck bug corpus: DC101
# From: https://github.com/graphnet-team/graphnet/issues/328
# A multiclass cross-entropy loss mapped particle ids to classes with a Python
# comprehension into torch.tensor and one_hot, on the host, and compared it with
# the predictions on the GPU: "wants to run on multiple devices". Assigning a
# device resolved it.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from torch.nn.functional import cross_entropy, one_hot


class MultiClassificationCrossEntropyLoss(torch.nn.Module):
    def forward(self, prediction, target):
        pid_transform = {1: 0, 12: 2, 13: 1, 14: 2, 16: 2}
        target_new = one_hot(torch.tensor([pid_transform[np.abs(int(value))] for value in target], device=prediction.device), 3)  # <- fixed
        return cross_entropy(prediction.float(), target_new.float(), reduction="none")
