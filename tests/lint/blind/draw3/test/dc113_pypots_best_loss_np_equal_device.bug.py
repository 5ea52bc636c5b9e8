# devcheck bug corpus: DC113
# From: https://github.com/WenjieDu/PyPOTS/issues/21
# Running the imputation tests (SAITS, Transformer, BRITS) on a machine with
# a GPU: the models and their inputs went to cuda:0, the validation MAE was
# computed with torch on the device imputations and kept as best_loss, and
# the check after training, np.equal(self.best_loss, float('inf')), made
# NumPy convert a CUDA tensor: "can't convert cuda:0 device type tensor to
# numpy". The answer was to install the development version, where the
# check reads the loss with .item() first (commit 137b35d, PR #11).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def cal_mae(inputs, target, mask):
    lib = np if isinstance(inputs, np.ndarray) else torch
    return lib.sum(lib.abs(inputs - target) * mask) / (lib.sum(mask) + 1e-9)


class BaseNNImputer:
    def __init__(self, epochs, patience, batch_size, device=None):
        if device is None:
            device = torch.device("cuda:0" if torch.cuda.is_available() and torch.cuda.device_count() > 0 else "cpu")
        self.device = device
        self.epochs = epochs
        self.patience = patience
        self.batch_size = batch_size
        self.model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 1)).to(self.device)

    def _train_model(self, training_loader, val_loader, val_X_intact, val_indicating_mask):
        optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.best_loss = float("inf")
        for epoch in range(self.epochs):
            self.model.train()
            for X, mask in training_loader:
                X, mask = X.to(self.device), mask.to(self.device)
                optimizer.zero_grad()
                imputed = self.model(torch.stack([X * mask, mask], -1)).squeeze(-1)
                loss = cal_mae(imputed, X, mask)
                loss.backward()
                optimizer.step()
            self.model.eval()
            collector = []
            with torch.no_grad():
                for X, mask in val_loader:
                    X, mask = X.to(self.device), mask.to(self.device)
                    collector.append(self.model(torch.stack([X * mask, mask], -1)).squeeze(-1))
            mean_val_loss = cal_mae(torch.cat(collector), val_X_intact, val_indicating_mask)
            if mean_val_loss < self.best_loss:
                self.best_loss = mean_val_loss
        if np.equal(self.best_loss, float("inf")):  # <- bug
            raise ValueError("Something is wrong. best_loss is Nan after training.")

    def fit(self, train_X, val_X):
        train_X = torch.from_numpy(train_X).float()
        val_X_intact = torch.from_numpy(val_X).float().to(self.device)
        indicating_mask = (torch.rand_like(val_X_intact) < 0.2).float()
        val_mask = 1 - indicating_mask
        training_loader = DataLoader(TensorDataset(train_X, torch.ones_like(train_X)), batch_size=self.batch_size, shuffle=True)
        val_loader = DataLoader(TensorDataset(val_X_intact.cpu(), val_mask.cpu()), batch_size=self.batch_size)
        self._train_model(training_loader, val_loader, val_X_intact, indicating_mask)
