# devcheck bug corpus: DC113
# From: https://github.com/wengong-jin/hgraph2graph/pull/35
# The hierarchical graph VAE's training script runs the model on the GPU; its
# forward returns the loss, the KL term as a float, and the decoder's word,
# attachment, topology and assembly accuracies as CUDA tensors. The script
# added np.array([kl_div, loss.item(), wacc * 100, ...]) to its meters, and
# NumPy failed on the CUDA tensors: "can't convert cuda:0 device type tensor
# to numpy". The pull request moves the accuracies to the CPU there.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class GraphVAE(nn.Module):
    def __init__(self, vocab_size, hidden, latent):
        super().__init__()
        self.encoder = nn.Embedding(vocab_size, hidden)
        self.mean = nn.Linear(hidden, latent)
        self.var = nn.Linear(hidden, latent)
        self.decoder = nn.Linear(latent, vocab_size)

    def forward(self, tokens, targets, beta):
        h = self.encoder(tokens).mean(1)
        mu, logvar = self.mean(h), -torch.abs(self.var(h))
        kl_div = -0.5 * torch.sum(1.0 + logvar - mu * mu - torch.exp(logvar)) / tokens.size(0)
        z = mu + torch.exp(logvar / 2) * torch.randn_like(mu)
        scores = self.decoder(z)
        loss = nn.functional.cross_entropy(scores, targets)
        wacc = (scores.argmax(-1) == targets).float().mean()
        iacc = tacc = sacc = wacc
        return loss + beta * kl_div, kl_div.item(), wacc, iacc, tacc, sacc


parser = argparse.ArgumentParser()
parser.add_argument("--train", required=True)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epoch", type=int, default=20)
parser.add_argument("--print_iter", type=int, default=50)
args = parser.parse_args()

model = GraphVAE(800, 250, 32).cuda()
optimizer = optim.Adam(model.parameters(), lr=args.lr)
batches = torch.load(args.train, map_location="cpu")

total_step = beta = 0
meters = np.zeros(6)
for epoch in range(args.epoch):
    for tokens, targets in batches:
        total_step += 1
        model.zero_grad()
        loss, kl_div, wacc, iacc, tacc, sacc = model(tokens.cuda(), targets.cuda(), beta=beta)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 20.0)
        optimizer.step()
        meters = meters + np.array([kl_div, loss.item(), wacc * 100, iacc * 100, tacc * 100, sacc * 100])  # <- bug
        if total_step % args.print_iter == 0:
            meters /= args.print_iter
            print("[%d] KL: %.2f, loss: %.3f, Word: %.2f, %.2f, Topo: %.2f, Assm: %.2f" % (total_step, *meters))
            sys.stdout.flush()
            meters *= 0
