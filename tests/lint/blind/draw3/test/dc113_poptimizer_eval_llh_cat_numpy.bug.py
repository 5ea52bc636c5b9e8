# devcheck bug corpus: DC113
# From: https://github.com/WLM1ke/poptimizer/pull/62
# Testing a trained forecasting network on a GPU machine: the features were
# made on DEVICE (cuda when available) and the model moved there, and the
# test pass collected the forecast means, the variances and the labels of
# every batch; after the loop they were concatenated and turned into NumPy
# with `torch.cat(...).numpy()` for the portfolio metric, which fails for
# CUDA tensors. The PR adds `.cpu()` before `.numpy()`.
# Written for devcheck's tests after the thread; not the project's code.
import sys

import numpy as np
import torch
import tqdm
from torch import nn
from torch.utils.data import DataLoader, Dataset

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class TickerDataset(Dataset):
    def __init__(self, prices, history_days):
        self.prices = torch.tensor(prices, dtype=torch.float, device=DEVICE)
        self.history_days = history_days

    def __len__(self):
        return len(self.prices) - self.history_days

    def __getitem__(self, i):
        window = self.prices[i : i + self.history_days]
        return {"Prices": window, "Label": self.prices[i + self.history_days] / window[-1] - 1}


class Forecaster(nn.Module):
    def __init__(self, history_days):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(history_days, 32), nn.ReLU(), nn.Linear(32, 2))

    def dist(self, batch):
        m, s = self.body(batch["Prices"]).unbind(-1)
        return torch.distributions.LogNormal(m, nn.functional.softplus(s) + 1e-4)


def log_normal_llh(model, batch):
    dist = model.dist(batch)
    llh = dist.log_prob(batch["Label"] + torch.tensor(1.0))
    return -llh.sum(), dist.mean - torch.tensor(1.0), dist.variance


def eval_llh(model, prices, history_days):
    loader = DataLoader(TickerDataset(prices, history_days), batch_size=64)
    model.to(DEVICE)
    llh_sum = 0
    weight_sum = 0
    all_means, all_vars, all_labels = [], [], []
    with torch.no_grad():
        model.eval()
        for batch in tqdm.tqdm(loader, file=sys.stdout, desc="~~> Test"):
            loss, mean, var = log_normal_llh(model, batch)
            llh_sum -= loss.item()
            weight_sum += mean.shape[0]
            all_means.append(mean)
            all_vars.append(var)
            all_labels.append(batch["Label"])
    all_means = torch.cat(all_means).numpy().flatten()  # <- bug
    all_vars = torch.cat(all_vars).numpy().flatten()  # <- bug
    all_labels = torch.cat(all_labels).numpy().flatten()  # <- bug
    ir = np.mean(all_means / np.sqrt(all_vars)) * np.sign(np.mean(all_labels))
    return llh_sum / weight_sum, ir
