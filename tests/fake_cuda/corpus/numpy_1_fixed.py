# kind: numpy
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/samet-akcay/ganomaly/issues/26
# source: https://github.com/robustness-gym/robustness-gym/pull/39
# fix: put the scores and labels on the CPU before the NumPy metric (.cpu())
"""Anomaly detection test loop (GANomaly style): anomaly scores and labels are
collected in tensors preallocated on the device, then the ROC AUC is computed
with NumPy, as roc_curve does with np.asarray."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def roc_auc(labels, scores):
    y = np.asarray(labels)
    s = np.asarray(scores)
    order = np.argsort(-s)
    y = y[order]
    tps, fps = np.cumsum(y), np.cumsum(1 - y)
    tpr, fpr = tps / max(tps[-1], 1), fps / max(fps[-1], 1)
    tpr, fpr = np.r_[0, tpr], np.r_[0, fpr]
    return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2))


encoder = nn.Sequential(nn.Linear(6, 3), nn.Tanh()).to(device)
decoder = nn.Linear(3, 6).to(device)
data = torch.randn(20, 6)
labels = torch.zeros(20)
labels[15:] = 1
data[15:] += 3

an_scores = torch.zeros(size=(len(data),), dtype=torch.float32, device=device)
gt_labels = torch.zeros(size=(len(data),), dtype=torch.long, device=device)
with torch.no_grad():
    for i in range(0, len(data), 5):
        x = data[i:i + 5].to(device)
        error = ((decoder(encoder(x)) - x) ** 2).mean(1)
        an_scores[i:i + 5] = error
        gt_labels[i:i + 5] = labels[i:i + 5].to(device)
an_scores = (an_scores - an_scores.min()) / (an_scores.max() - an_scores.min())
print("AUC", round(roc_auc(gt_labels.cpu(), an_scores.cpu()), 4))
