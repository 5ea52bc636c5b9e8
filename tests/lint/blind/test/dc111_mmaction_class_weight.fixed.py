# devcheck bug corpus: DC111
# From: https://github.com/open-mmlab/mmaction2/pull/1188
# A cross-entropy loss module turned its class_weight list into a plain tensor
# attribute in __init__ and passed it to F.cross_entropy with the class scores
# on the GPU: the weight stayed on the host. The fix moved it to the scores'
# device at the call.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class CrossEntropyLoss(nn.Module):
    def __init__(self, loss_weight=1.0, class_weight=None):
        super().__init__()
        self.loss_weight = loss_weight
        self.class_weight = None
        if class_weight is not None:
            self.class_weight = torch.Tensor(class_weight)

    def forward(self, cls_score, label):
        if self.class_weight is not None:
            loss_cls = F.cross_entropy(cls_score, label, weight=self.class_weight.to(cls_score.device))  # <- fixed
        else:
            loss_cls = F.cross_entropy(cls_score, label)
        return loss_cls * self.loss_weight
