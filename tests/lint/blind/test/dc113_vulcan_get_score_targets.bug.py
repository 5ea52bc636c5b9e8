# devcheck bug corpus: DC113
# From: https://github.com/Aifred-Health/VulcanAI/issues/112
# The metrics helper get_score received the model's predictions as a torch
# tensor (on the GPU when CUDA is present) and converted them with .numpy().
# The fix brought them to the CPU first.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from sklearn import metrics


def get_score(targets, predictions):
    if isinstance(predictions, torch.Tensor):
        predictions = predictions.numpy()  # <- bug
    return metrics.accuracy_score(targets, np.argmax(predictions, axis=1))


def run_test(network, loader, device):
    network = network.to(device)
    scores = []
    for data, targets in loader:
        predictions = network(data.to(device))
        scores.append(get_score(targets.numpy(), predictions.detach()))
    return scores
