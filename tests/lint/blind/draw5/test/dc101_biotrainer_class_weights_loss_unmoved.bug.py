# devcheck bug corpus: DC101
# From: https://github.com/sacdallago/biotrainer/pull/62
# biotrainer with use_class_weights: the class weights are built as a CPU
# FloatTensor from the label counts and handed to CrossEntropyLoss, and the
# loss is never moved, while the solver moves the network and every batch to
# the GPU; the weighted loss then meets GPU predictions and labels.
# Written for devcheck's tests after the thread; not the project's code.
from collections import Counter
from typing import Optional

import torch
import torch.nn as nn

LOSSES = {
    "sequence_to_class": {"cross_entropy_loss": lambda **kw: nn.CrossEntropyLoss(**kw, ignore_index=-100)},
    "sequence_to_value": {"mean_squared_error": lambda **kw: nn.MSELoss(**kw)},
}


class TargetManager:
    def __init__(self, id2target, num_classes):
        self.id2target, self.num_classes = id2target, num_classes

    def compute_class_weights(self):
        counter = Counter(int(t) for t in self.id2target.values())
        n_samples = sum(counter[i] for i in range(self.num_classes))
        weights = [n_samples / (self.num_classes * counter[i]) for i in range(self.num_classes)]
        return torch.FloatTensor(weights)  # <- bug


def get_loss(protocol: str, loss_choice: str, weight: Optional[torch.Tensor] = None):
    loss = LOSSES[protocol][loss_choice]
    if weight is not None:
        return loss(weight=weight)  # <- bug
    return loss()


class Solver:
    def __init__(self, network, optimizer, loss_function, device):
        self.device = device
        self.network = network.to(self.device)
        self.optimizer, self.loss_function = optimizer, loss_function

    def train_epoch(self, loader):
        self.network.train()
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            loss = self.loss_function(self.network(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


def training_and_evaluation_routine(loader, id2target, n_features, n_classes,
                                    use_class_weights=True, device=None):
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    target_manager = TargetManager(id2target, n_classes)
    class_weights = target_manager.compute_class_weights() if use_class_weights else None
    model = nn.Sequential(nn.Linear(n_features, 32), nn.ReLU(), nn.Linear(32, n_classes))
    loss_function = get_loss(protocol="sequence_to_class", loss_choice="cross_entropy_loss",
                             weight=class_weights)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    solver = Solver(model, optimizer, loss_function, device)
    for _ in range(10):
        solver.train_epoch(loader)
    return solver
