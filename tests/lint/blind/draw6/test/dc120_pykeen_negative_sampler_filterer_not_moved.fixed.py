# devcheck bug corpus: DC120
# From: https://github.com/pykeen/pykeen/issues/799
# From: https://github.com/pykeen/pykeen/pull/801
# Fixed: the negative sampler is an nn.Module (its filterer a submodule),
# and the training loop moves it to the training device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class BloomFilterer(nn.Module):
    def __init__(self, mapped_triples, size=1 << 16, rounds=3):
        super().__init__()
        self.rounds = rounds
        self.register_buffer("bit_array", torch.zeros(size, dtype=torch.bool))
        self.bit_array[self.hashes(mapped_triples)] = True

    def hashes(self, triples):
        x = triples[..., 0] * 1_000_003 + triples[..., 1] * 10_007 + triples[..., 2]
        return torch.stack([(x * (2 * i + 1) + i) % self.bit_array.shape[0] for i in range(self.rounds)], dim=-1)

    def forward(self, negative_batch):
        return ~self.bit_array[self.hashes(negative_batch)].all(dim=-1)


class NegativeSampler(nn.Module):  # <- fixed
    def __init__(self, mapped_triples, num_entities, num_negs_per_pos=1):
        super().__init__()  # <- fixed
        self.num_entities = num_entities
        self.num_negs_per_pos = num_negs_per_pos
        self.filterer = BloomFilterer(mapped_triples)

    def sample(self, positive_batch):
        neg = positive_batch.repeat_interleave(self.num_negs_per_pos, dim=0).clone()
        corrupt_tail = torch.rand(neg.shape[0], device=neg.device) < 0.5
        new_ids = torch.randint(self.num_entities, (neg.shape[0],), device=neg.device)
        neg[corrupt_tail, 2] = new_ids[corrupt_tail]
        neg[~corrupt_tail, 0] = new_ids[~corrupt_tail]
        return neg, self.filterer(neg)


class DistMult(nn.Module):
    def __init__(self, n_ent, n_rel, dim=32):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)

    def forward(self, triples):
        return (self.ent(triples[:, 0]) * self.rel(triples[:, 1]) * self.ent(triples[:, 2])).sum(-1)


def train(triples, n_ent, n_rel, epochs=5, batch_size=256):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DistMult(n_ent, n_rel).to(device)
    sampler = NegativeSampler(triples, n_ent, num_negs_per_pos=4).to(device)  # <- fixed
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(epochs):
        for batch in torch.split(triples[torch.randperm(len(triples))], batch_size):
            batch = batch.to(device)
            neg, keep = sampler.sample(batch)
            pos_score = model(batch)
            neg_score = model(neg[keep])
            loss = nn.functional.softplus(-pos_score).mean() + nn.functional.softplus(neg_score).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


triples = torch.stack([torch.randint(0, 1000, (5000,)), torch.randint(0, 20, (5000,)),
                       torch.randint(0, 1000, (5000,))], dim=1)
train(triples, n_ent=1000, n_rel=20)
