# devcheck bug corpus: DC101
# From: https://github.com/Sujit-O/pykg2vec/pull/182
# The knowledge-graph evaluator moved each test triple's ids to the
# configured device, but the rank helpers wrapped them again in
# torch.LongTensor([...]) before calling the model's predict_*_rank, which
# builds fresh CPU tensors; the model's embeddings are on the GPU, so the
# lookup meets cpu and cuda:0 (issue 180).
# Written for devcheck's tests after the thread; not the project's code.
from types import SimpleNamespace

import torch
import torch.nn as nn


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim=50):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)

    def forward(self, h, r, t):
        return -torch.norm(self.ent(h) + self.rel(r) - self.ent(t), p=1, dim=-1)

    def predict_tail_rank(self, h, r, topk=-1):
        scores = -torch.norm(self.ent(h)[:, None] + self.rel(r)[:, None] - self.ent.weight[None], p=1, dim=-1)
        return torch.topk(scores, k=topk).indices

    def predict_head_rank(self, t, r, topk=-1):
        scores = -torch.norm(self.ent.weight[None] + self.rel(r)[:, None] - self.ent(t)[:, None], p=1, dim=-1)
        return torch.topk(scores, k=topk).indices


class Evaluator:
    def __init__(self, model, config):
        self.model = model
        self.config = config

    def test_tail_rank(self, h, r, topk=-1):
        if hasattr(self.model, "predict_tail_rank"):
            rank = self.model.predict_tail_rank(torch.LongTensor([h]), torch.LongTensor([r]), topk=topk)  # <- bug
            return rank.squeeze(0)
        h_batch = torch.LongTensor([h]).repeat([self.config.tot_entity]).to(self.config.device)
        r_batch = torch.LongTensor([r]).repeat([self.config.tot_entity]).to(self.config.device)
        ents = torch.arange(self.config.tot_entity).to(self.config.device)
        return torch.topk(self.model(h_batch, r_batch, ents), k=topk).indices

    def test_head_rank(self, r, t, topk=-1):
        if hasattr(self.model, "predict_head_rank"):
            rank = self.model.predict_head_rank(torch.LongTensor([t]), torch.LongTensor([r]), topk=topk)  # <- bug
            return rank.squeeze(0)
        ents = torch.arange(self.config.tot_entity).to(self.config.device)
        r_batch = torch.LongTensor([r]).repeat([self.config.tot_entity]).to(self.config.device)
        t_batch = torch.LongTensor([t]).repeat([self.config.tot_entity]).to(self.config.device)
        return torch.topk(self.model(ents, r_batch, t_batch), k=topk).indices

    @torch.no_grad()
    def test(self, triples):
        hits = 0
        for h, r, t in triples:
            h_tensor = torch.LongTensor([h]).to(self.config.device)
            r_tensor = torch.LongTensor([r]).to(self.config.device)
            t_tensor = torch.LongTensor([t]).to(self.config.device)
            hrank = self.test_head_rank(r_tensor, t_tensor, self.config.tot_entity)
            trank = self.test_tail_rank(h_tensor, r_tensor, self.config.tot_entity)
            hits += int(t in trank[:10].cpu().tolist()) + int(h in hrank[:10].cpu().tolist())
        return hits / (2 * len(triples))


config = SimpleNamespace(tot_entity=500, tot_relation=20,
                         device=torch.device("cuda" if torch.cuda.is_available() else "cpu"))
model = TransE(config.tot_entity, config.tot_relation).to(config.device)
print(Evaluator(model, config).test([(1, 2, 3), (4, 5, 6), (7, 8, 9)]))
