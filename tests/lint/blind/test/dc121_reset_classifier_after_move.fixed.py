# devcheck bug corpus: DC121
# From: https://github.com/huggingface/pytorch-image-models/pull/2743
# Resetting a model's classifier head after moving the model made the new
# Linear with PyTorch's defaults (CPU, float32), so the next forward failed. The
# fix made the replacement with the old head's device and dtype.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ClassifierHead(nn.Module):
    def __init__(self, in_features, num_classes):
        super().__init__()
        self.in_features = in_features
        self.fc = nn.Linear(in_features, num_classes)

    def reset(self, num_classes):
        self.fc = nn.Linear(self.in_features, num_classes, device=self.fc.weight.device, dtype=self.fc.weight.dtype)  # <- fixed

    def forward(self, x):
        return self.fc(x)


def finetune(head, device, num_classes, x):
    head = head.to(device)
    head.reset(num_classes)
    return head(x.to(device))
