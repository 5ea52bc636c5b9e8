# kind: tensor-constant-in-loss
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/GarrettJenkinson/condor_pytorch/pull/2
# fix: set the device of the torch.ones inside condor_negloglikeloss from the input's device
"""Ordinal regression with the CONDOR negative log-likelihood: the loss
prepends a column of ones to the shifted extended-binary labels."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def levels_from_labelbatch(labels, num_classes):
    return (torch.arange(num_classes - 1, device=labels.device)[None, :] < labels[:, None]).float()


def condor_negloglikeloss(logits, labels, reduction="mean"):
    piLab = torch.cat([torch.ones((labels.shape[0], 1), device=labels.device), labels[:, :-1]], dim=1)
    zeros = torch.zeros_like(logits)
    cond = logits >= zeros
    cond2 = piLab > zeros
    relu_logits = torch.where(cond, logits, zeros)
    neg_abs_logits = torch.where(cond, -logits, logits)
    temp = relu_logits - logits * labels + torch.log1p(torch.exp(neg_abs_logits))
    val = torch.sum(torch.where(cond2, temp, zeros), dim=1)
    return val.mean() if reduction == "mean" else val.sum()


num_classes = 5
model = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, num_classes - 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(20, 7), torch.randint(0, num_classes, (20,))
for epoch in range(3):
    logits = model(x.to(device))
    levels = levels_from_labelbatch(y.to(device), num_classes)
    loss = condor_negloglikeloss(logits, levels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("nll", round(loss.item(), 4))
