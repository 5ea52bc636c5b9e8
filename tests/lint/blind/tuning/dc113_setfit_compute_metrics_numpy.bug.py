# devcheck bug corpus: DC113
# From: https://github.com/huggingface/setfit/issues/339
# A user's compute_metrics helper called .numpy() on the predictions of a model
# with a differentiable head, which come back on the GPU: "can't convert cuda:0
# device type tensor to numpy".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from sklearn.metrics import f1_score


def compute_metrics(predictions, labels):
    predictions = predictions.numpy()  # <- bug
    return {"f1": f1_score(labels, predictions, average="micro")}


def evaluate(model, x_test, y_test, device):
    model.to(device)
    with torch.no_grad():
        y_pred = model(x_test.to(device)).argmax(-1)
    return compute_metrics(y_pred, np.asarray(y_test))
