# kind: loss-weight
# source: https://github.com/vandit15/Class-balanced-loss-pytorch/pull/22
# fix: check the device of labels and logits and move the class-balanced weights to it
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""Class-balanced loss (effective number of samples) in front of a sigmoid
cross entropy: the per-class weights are built with torch.tensor(weights)."""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def CB_loss(labels, logits, samples_per_cls, no_of_classes, beta=0.9999):
    effective_num = 1.0 - np.power(beta, samples_per_cls)
    weights = (1.0 - beta) / np.array(effective_num)
    weights = weights / np.sum(weights) * no_of_classes
    labels_one_hot = F.one_hot(labels, no_of_classes).float()
    weights = torch.tensor(weights).float()  # BUG:stray
    weights = weights.unsqueeze(0)
    weights = weights.repeat(labels_one_hot.shape[0], 1) * labels_one_hot  # BUG:op
    weights = weights.sum(1).unsqueeze(1).repeat(1, no_of_classes)
    return F.binary_cross_entropy_with_logits(logits, labels_one_hot, weight=weights)


samples_per_cls = [30, 8, 2]
model = nn.Linear(5, 3).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(10, 5)
y = torch.randint(0, 3, (10,))
for step in range(3):
    loss = CB_loss(y.to(device), model(x.to(device)), samples_per_cls, 3)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("cb loss", round(loss.item(), 4))
