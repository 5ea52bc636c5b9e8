# devcheck bug corpus: DC120
# From: https://github.com/inyeoplee77/SAGPool/issues/3
# After training, main.py builds a fresh Net(args) for testing without moving
# it to args.device, loads the best weights and runs the test batches on the
# GPU: "Expected object of backend CUDA but got backend CPU"; the fix adds
# .to(args.device) at that line.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_features, num_classes):
        super().__init__()
        self.lin = nn.Linear(num_features, num_classes)

    def forward(self, x):
        return F.log_softmax(self.lin(x), dim=-1)


def evaluate(args, test_loader):
    model = Net(args.num_features, args.num_classes)  # <- bug
    model.load_state_dict(torch.load("latest.pth", map_location="cpu"))
    model.eval()
    correct = 0
    for x, y in test_loader:
        x, y = x.to(args.device), y.to(args.device)
        pred = model(x).max(dim=1)[1]
        correct += pred.eq(y).sum().item()
    return correct
