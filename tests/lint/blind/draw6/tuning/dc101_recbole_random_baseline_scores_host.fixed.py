# devcheck bug corpus: DC101
# From: https://github.com/RUCAIBox/RecBole/pull/1997
# From: https://github.com/RUCAIBox/RecBole/issues/1984
# Fixed: the random scores are made on the model's device
# (torch.rand(n, device=self.device)).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class RandomRecommender(nn.Module):
    def __init__(self, n_users, n_items, seed=42):
        super().__init__()
        self.n_users = n_users
        self.n_items = n_items
        torch.manual_seed(seed + n_users + n_items)
        self.fake_loss = nn.Parameter(torch.zeros(1))

    @property
    def device(self):
        return self.fake_loss.device

    def calculate_loss(self, batch):
        return self.fake_loss.sum() * 0

    def predict(self, batch):
        return torch.rand(len(batch["item_id"]), device=self.device).squeeze(-1)  # <- fixed


class Evaluator:
    def __init__(self, model, n_items, device):
        self.model = model.to(device)
        self.n_items = n_items
        self.device = device

    @torch.no_grad()
    def neg_sample_batch(self, batch, row_idx):
        batch = {k: v.to(self.device) for k, v in batch.items()}
        origin_scores = self.model.predict(batch)
        n_rows = int(row_idx.max()) + 1
        scores = torch.full((n_rows, self.n_items), -np.inf, device=self.device)
        scores[row_idx.to(self.device), batch["item_id"]] = origin_scores
        return scores.topk(10, dim=-1).indices


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = RandomRecommender(n_users=943, n_items=1682)
evaluator = Evaluator(model, n_items=1682, device=device)
users = torch.arange(4).repeat_interleave(101)
items = torch.randint(0, 1682, (4 * 101,))
print(evaluator.neg_sample_batch({"user_id": users, "item_id": items}, row_idx=users))
