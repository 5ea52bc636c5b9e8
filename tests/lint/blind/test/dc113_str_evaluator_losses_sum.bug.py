# devcheck bug corpus: DC113
# From: https://github.com/HCIILAB/Scene-Text-Recognition-Recommendations/issues/2
# A text recognizer's evaluator collected the loss of each batch (a CUDA tensor)
# in a list and summed it with np.sum: "can't convert cuda:0 device type tensor
# to numpy". The fix took each loss to the host.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


class Evaluator:
    def __init__(self, model, device):
        self.model = model
        self.device = device

    def evaluate(self, data_loader, batch_size):
        losses = []
        for images, labels in data_loader:
            images, labels = images.to(self.device), labels.to(self.device)
            with torch.no_grad():
                loss = self.model(images, labels)
            losses.append(loss)  # <- bug
        return np.sum(losses) / (1.0 * len(data_loader) * batch_size)  # <- bug
