# devcheck bug corpus: DC113
# From: https://github.com/ArdalanM/nlp-benchmarks/pull/9
# From: https://github.com/ArdalanM/nlp-benchmarks/commit/3276a09b9841cf3a6616f00ff1f74adf0709bcbe
# The fix (PR #9, commit 3276a09) copies the predicted classes to the host with
# .cpu().numpy(), as the labels already were, before sklearn's confusion_matrix
# reads them.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn import metrics
from torch.utils.data import DataLoader

from src.datasets import load_datasets
from src.han.net import HAN


def get_metrics(cm):
    total = np.sum(cm)
    return {"accuracy": np.sum(np.diag(cm)) / total}


def run_epoch(epoch, net, dataset, device, optimize=False, optimizer=None, criterion=None):
    net.train() if optimize else net.eval()
    nclasses = len(list(net.parameters())[-1])
    cm = np.zeros((nclasses, nclasses), dtype=int)
    epoch_loss = 0.0
    for it, (batch_t, r_t, sent_order, ls, lr, review) in enumerate(dataset):
        batch_t, r_t, sent_order = [x.to(device) for x in (batch_t, r_t, sent_order)]
        if optimize:
            optimizer.zero_grad()
        out = net(batch_t, sent_order, ls, lr)
        ty_prob = F.softmax(out, 1)

        y_true = r_t.detach().cpu().numpy()
        y_pred = ty_prob.max(1)[1].cpu().numpy()  # <- fixed
        cm += metrics.confusion_matrix(y_true, y_pred, labels=range(nclasses))
        scores = get_metrics(cm)

        loss = criterion(out, r_t)
        epoch_loss += loss.item()
        if optimize:
            loss.backward()
            optimizer.step()
    scores["logloss"] = epoch_loss / (it + 1)
    print(epoch, scores)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuid", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=10)
    opt = parser.parse_args()

    tr_data, te_data, n_tokens, n_classes = load_datasets("yelp_review_polarity")
    tr_loader = DataLoader(tr_data, batch_size=32, shuffle=True)
    te_loader = DataLoader(te_data, batch_size=32)

    device = torch.device("cuda:{}".format(opt.gpuid) if opt.gpuid >= 0 else "cpu")
    net = HAN(n_tokens, n_classes, emb_size=200, hid_size=50)
    criterion = nn.CrossEntropyLoss()
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(1, opt.epochs + 1):
        run_epoch(epoch, net, tr_loader, device, optimize=True, optimizer=optimizer, criterion=criterion)
        run_epoch(epoch, net, te_loader, device, criterion=criterion)
