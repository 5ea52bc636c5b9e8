# devcheck bug corpus: DC101
# From: https://github.com/vandit15/Class-balanced-loss-pytorch/pull/22
# A class-balanced loss function computed the per-class weights from the
# effective number of samples with NumPy and made them a tensor with
# torch.tensor(weights), on the CPU, then multiplied them with the one-hot
# labels made from the batch's labels on the GPU, and the loss failed on a
# GPU. The pull request moves the weights to the labels' device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def cb_loss(labels, logits, samples_per_cls, no_of_classes, beta=0.9999):
    effective_num = 1.0 - np.power(beta, samples_per_cls)
    weights = (1.0 - beta) / np.array(effective_num)
    weights = weights / np.sum(weights) * no_of_classes
    labels_one_hot = F.one_hot(labels, no_of_classes).float()
    weights = torch.tensor(weights).float()  # <- bug
    weights = weights.unsqueeze(0)
    weights = weights.repeat(labels_one_hot.shape[0], 1) * labels_one_hot
    weights = weights.sum(1).unsqueeze(1).repeat(1, no_of_classes)
    return F.binary_cross_entropy_with_logits(logits, labels_one_hot, weight=weights)


def train(model, loader, samples_per_cls, classes):
    device = torch.device("cuda")
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = cb_loss(y, model(x), samples_per_cls, classes)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train(nn.Linear(20, 5), [], [10, 40, 7, 3, 1], 5)
