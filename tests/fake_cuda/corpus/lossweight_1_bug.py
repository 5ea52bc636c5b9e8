# kind: loss-weight
# source: https://github.com/sacdallago/biotrainer/issues/67
# source: https://github.com/pytorch/pytorch/issues/122757
# fix: send the class weights to the device before building the loss (CrossEntropyLoss(weight=weights.to(device)))
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument weight in method wrapper__nll_loss2d_forward)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument weight in method wrapper_CUDA__nll_loss2d_forward)
# sanitizer: mismatch
"""Residue classification with use_class_weights: the weights are computed
from the training labels' counts and handed to nn.CrossEntropyLoss."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

n_classes = 4
embeddings = torch.randn(40, 12)
labels = torch.randint(0, n_classes, (40,))
labels[:20] = 0  # an unbalanced set


def compute_class_weights(labels, n_classes):
    counts = torch.bincount(labels, minlength=n_classes).float()
    return counts.sum() / (n_classes * counts.clamp(min=1))  # BUG:stray


model = nn.Sequential(nn.Conv1d(12, 16, 1), nn.ReLU(), nn.Conv1d(16, n_classes, 1)).to(device)
loss_function = nn.CrossEntropyLoss(weight=compute_class_weights(labels, n_classes))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    x = embeddings.t().unsqueeze(0).to(device)
    y = labels.unsqueeze(0).to(device)
    loss = loss_function(model(x), y)  # BUG:op
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
