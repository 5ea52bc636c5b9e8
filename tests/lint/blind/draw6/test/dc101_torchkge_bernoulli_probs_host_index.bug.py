# devcheck bug corpus: DC101
# From: https://github.com/torchkge-team/torchkge/pull/246
# The Bernoulli negative sampler computes its per-relation head-corruption
# probabilities once, as tensor(...) on the CPU, and indexes them with the
# batch's relation ids; when training runs on CUDA those ids are on the GPU,
# and indexing the CPU table with them fails.
# Written for devcheck's tests after the thread; not the project's code.
from collections import defaultdict

import torch
import torch.nn as nn
from torch import bernoulli, randint, tensor
from torch.utils.data import DataLoader, TensorDataset


def get_bernoulli_probs(triples, n_rel):
    tails_per_head = defaultdict(lambda: defaultdict(set))
    heads_per_tail = defaultdict(lambda: defaultdict(set))
    for h, t, r in triples.tolist():
        tails_per_head[r][h].add(t)
        heads_per_tail[r][t].add(h)
    probs = {}
    for r in range(n_rel):
        if r in tails_per_head:
            tph = sum(len(v) for v in tails_per_head[r].values()) / len(tails_per_head[r])
            hpt = sum(len(v) for v in heads_per_tail[r].values()) / len(heads_per_tail[r])
            probs[r] = tph / (tph + hpt)
    return probs


class NegativeSampler:
    def __init__(self, triples, n_ent, n_rel, n_neg=1):
        self.triples, self.n_ent, self.n_rel, self.n_neg = triples, n_ent, n_rel, n_neg


class BernoulliNegativeSampler(NegativeSampler):
    def __init__(self, triples, n_ent, n_rel, n_neg=1):
        super().__init__(triples, n_ent, n_rel, n_neg)
        self.bern_probs = self.evaluate_probabilities()

    def evaluate_probabilities(self):
        probs = get_bernoulli_probs(self.triples, self.n_rel)
        return tensor([probs.get(i, 0.5) for i in range(self.n_rel)]).float()  # <- bug

    def corrupt_batch(self, heads, tails, relations, n_neg=None):
        n_neg = n_neg or self.n_neg
        device = heads.device
        batch_size = heads.shape[0]
        neg_heads, neg_tails = heads.repeat(n_neg), tails.repeat(n_neg)
        mask = bernoulli(self.bern_probs[relations].repeat(n_neg)).double()
        n_h_cor = int(mask.sum().item())
        neg_heads[mask == 1] = randint(1, self.n_ent, (n_h_cor,), device=device)
        neg_tails[mask == 0] = randint(1, self.n_ent, (batch_size * n_neg - n_h_cor,), device=device)
        return neg_heads.long(), neg_tails.long()


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim=100):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)

    def score(self, h, t, r):
        return -(self.ent(h) + self.rel(r) - self.ent(t)).norm(p=2, dim=-1)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n_ent, n_rel = 1000, 20
    triples = torch.stack([torch.randint(0, n_ent, (20000,)), torch.randint(0, n_ent, (20000,)), torch.randint(0, n_rel, (20000,))], dim=1)
    model = TransE(n_ent, n_rel).to(device)
    sampler = BernoulliNegativeSampler(triples, n_ent, n_rel)
    criterion = nn.MarginRankingLoss(margin=0.5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for h, t, r in DataLoader(TensorDataset(triples[:, 0], triples[:, 1], triples[:, 2]), batch_size=1024, shuffle=True):
        h, t, r = h.to(device), t.to(device), r.to(device)
        n_h, n_t = sampler.corrupt_batch(h, t, r)
        pos, neg = model.score(h, t, r), model.score(n_h, n_t, r)
        loss = criterion(pos, neg, torch.ones_like(pos))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
