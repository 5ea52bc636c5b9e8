# kind: numpy
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1429
# fix: turn the predictions into host data with .cpu() before the NumPy metric ("for now I'm turning data to CPU with .cpu()")
"""A validation step that scores predictions with a NumPy accuracy and a
confusion matrix, as accuracy_score would, after moving the batch to the GPU."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def accuracy_and_confusion(y_true, y_pred, n_classes):
    cm = np.bincount(n_classes * y_true + y_pred, minlength=n_classes ** 2).reshape(n_classes, n_classes)
    return float((y_true == y_pred).mean()), cm


model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
val_x = torch.randn(12, 10)
val_y = torch.randint(0, 3, (12,))


def validation_step(batch):
    x, y = batch
    x, y = x.to(device), y.to(device)
    y_hat = model(x)
    preds = y_hat.argmax(dim=1)
    acc, cm = accuracy_and_confusion(y.cpu().numpy(), preds.cpu().numpy(), 3)
    return {"val_loss": nn.functional.cross_entropy(y_hat, y), "val_acc": acc, "cm": cm}


with torch.no_grad():
    out = validation_step((val_x, val_y))
print("val_acc", out["val_acc"])
print(out["cm"])
