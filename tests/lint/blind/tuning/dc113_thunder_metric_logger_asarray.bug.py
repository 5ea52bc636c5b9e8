# devcheck bug corpus: DC113
# From: https://github.com/neuro-ml/thunder/issues/49
# A metric-logging callback collected (prediction, target) pairs from the
# validation steps, still on the GPU, and mapped np.asarray over them: "can't
# convert cuda:0 device type tensor to numpy".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def evaluate_epoch(model, loader, metrics, device):
    all_predictions = []
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            all_predictions.append((model(x), y))  # <- bug
    predictions, targets = map(np.asarray, zip(*all_predictions))  # <- bug
    return {name: metric(targets, predictions) for name, metric in metrics.items()}
