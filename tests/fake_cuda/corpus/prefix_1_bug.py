# kind: state-dict-prefix
# source: https://github.com/dontLoveBugs/DORN_pytorch/issues/4
# source: https://github.com/whai362/pan_pp.pytorch/issues/14
# fix: save model.module.state_dict() when the model is wrapped, so the keys have no "module." prefix
# expect: Unexpected key(s) in state_dict: "module.
# sanitizer: none
"""Train, save, then evaluate a fresh model from the checkpoint: the training
code wraps the model in nn.DataParallel whenever more than one GPU is there."""
import os

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_model():
    return nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))


def train(path):
    model = make_model()
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    for step in range(3):
        loss = ((model(x.to(device)) - y.to(device)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.save(model.state_dict(), path)  # BUG:stray


def evaluate(path):
    model = make_model().to(device)
    model.load_state_dict(torch.load(path, map_location=device))  # BUG:op
    model.eval()
    with torch.no_grad():
        return model(torch.ones(2, 5, device=device)).squeeze(1).tolist()


train("checkpoint.pth")
print(evaluate("checkpoint.pth"))
os.remove("checkpoint.pth")
