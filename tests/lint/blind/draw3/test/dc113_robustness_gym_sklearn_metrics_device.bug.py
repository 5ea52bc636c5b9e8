# devcheck bug corpus: DC113
# From: https://github.com/robustness-gym/robustness-gym/pull/39
# Robustness Gym's model wrapper evaluates a classifier on a dataset: it
# gathers the predictions and targets of all batches, puts them on the
# model's device (a GPU when there is one) and calls compute_metric for
# each metric; accuracy and the F1 variants are scikit-learn functions, and
# handing them CUDA tensors failed when evaluating on a GPU. The PR ("Fix
# sklearn metrics on GPU") puts the tensors on the CPU at the top of
# compute_metric.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Sequence, Union

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score


def accuracy(predictions, labels):
    return accuracy_score(y_true=labels, y_pred=predictions)


def f1_macro(predictions, labels):
    return f1_score(y_true=labels, y_pred=predictions, average="macro")


def class_distribution(labels, num_classes):
    unique_labels, counts = np.unique(np.asarray(labels), return_counts=True)
    dist = np.zeros(num_classes)
    dist[unique_labels.astype(int)] = counts / len(labels)
    return dist


def compute_metric(metric: str, predictions: Union[Sequence, torch.Tensor], labels: Union[Sequence, torch.Tensor], num_classes: int):
    if metric == "accuracy":
        return accuracy(predictions=predictions, labels=labels)  # <- bug
    elif metric == "f1_macro":
        return f1_macro(predictions=predictions, labels=labels)  # <- bug
    elif metric == "class_dist":
        return class_distribution(labels=labels, num_classes=num_classes)  # <- bug
    raise NotImplementedError


class Model:
    def __init__(self, model, device=None):
        if device is None:
            device = "cuda:0" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.model = model.to(self.device)

    @torch.no_grad()
    def predict_batch(self, inputs):
        logits = self.model(inputs.to(self.device))
        return {"logits": logits, "pred": logits.argmax(dim=-1)}

    def evaluate(self, inputs, labels, metrics, num_classes, batch_size=32):
        predictions = []
        for idx in range(0, len(inputs), batch_size):
            predictions.append(self.predict_batch(inputs[idx : idx + batch_size])["pred"].to("cpu"))
        pred = torch.cat(predictions).to(self.device)
        target = torch.as_tensor(labels).to(self.device)
        return {metric: compute_metric(metric, pred, target, num_classes) for metric in metrics}
