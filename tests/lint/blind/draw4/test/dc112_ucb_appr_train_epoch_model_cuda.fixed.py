# devcheck bug corpus: DC112
# From: https://github.com/SaynaEbrahimi/UCB/pull/7
# From: https://github.com/SaynaEbrahimi/UCB/commit/150293c5f061b354b89a13b3c8a03a2bc6a568c2
# The PR's fix (commit 150293c) moves the model with self.model.to(self.device), the
# device the rest of the approach uses, instead of the bare .cuda().
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BayesianMLP(nn.Module):
    def __init__(self, in_dim, hidden, n_tasks, n_classes):
        super().__init__()
        self.fc = nn.Linear(in_dim, hidden)
        self.classifier = nn.ModuleList([nn.Linear(hidden, n_classes) for _ in range(n_tasks)])

    def forward(self, x, sample=False):
        h = F.relu(self.fc(x.view(x.size(0), -1)))
        return [head(h) for head in self.classifier]


class Appr(object):
    def __init__(self, model, args):
        self.model = model
        self.device = args.device
        self.sbatch = args.sbatch
        self.nepochs = args.nepochs
        self.optimizer = None

    def train(self, t, xtrain, ytrain):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        for e in range(self.nepochs):
            self.train_epoch(t, xtrain, ytrain)

    def elbo_loss(self, images, targets, t):
        return F.cross_entropy(self.model(images, sample=True)[t], targets)

    def train_epoch(self, t, x, y):
        self.model.train()
        r = np.arange(x.size(0))
        np.random.shuffle(r)
        r = torch.LongTensor(r).to(self.device)
        for i in range(0, len(r), self.sbatch):
            b = r[i:i + self.sbatch]
            images, targets = x[b].to(self.device), y[b].to(self.device)
            loss = self.elbo_loss(images, targets, t).to(self.device)
            self.model.to(self.device)  # <- fixed
            self.optimizer.zero_grad()
            loss.backward(retain_graph=True)
            self.model.to(self.device)  # <- fixed
            self.optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", type=str, default="cuda:1")
    parser.add_argument("--sbatch", type=int, default=64)
    parser.add_argument("--nepochs", type=int, default=2)
    args = parser.parse_args()
    args.device = torch.device(args.device if torch.cuda.is_available() else "cpu")
    model = BayesianMLP(784, 256, n_tasks=5, n_classes=2).to(args.device)
    appr = Appr(model, args)
    x, y = torch.randn(512, 1, 28, 28).to(args.device), torch.randint(0, 2, (512,)).to(args.device)
    appr.train(0, x, y)
