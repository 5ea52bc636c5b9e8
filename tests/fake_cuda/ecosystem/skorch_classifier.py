"""skorch's NeuralNetClassifier(device=...) as its docs show it: a module
class, fit on numpy arrays (skorch makes the DataLoader and moves each batch
to the device), then predict_proba, two epochs, no validation split.

Prints one JSON line: the training losses of skorch's history and the sum of
the predicted probabilities, which the CPU run must reproduce.
"""
import json
import sys

import numpy as np
import torch
from skorch import NeuralNetClassifier


class Net(torch.nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(12, hidden), torch.nn.ReLU(),
                                        torch.nn.Linear(hidden, 3))

    def forward(self, X):
        return torch.softmax(self.body(X), dim=-1)


def main(device):
    torch.manual_seed(0)
    rng = np.random.RandomState(1)
    X = rng.randn(60, 12).astype(np.float32)
    y = rng.randint(0, 3, size=60).astype(np.int64)
    net = NeuralNetClassifier(Net, max_epochs=2, lr=0.1, batch_size=20, device=device,
                              train_split=None, iterator_train__shuffle=False, verbose=0)
    net.fit(X, y)
    proba = net.predict_proba(X)
    print(json.dumps({"device": str(next(net.module_.parameters()).device),
                      "losses": [float(h["train_loss"]) for h in net.history],
                      "proba_sum": float(proba.sum()), "argmax": proba.argmax(1).tolist()}))


if __name__ == "__main__":
    main(sys.argv[1])
