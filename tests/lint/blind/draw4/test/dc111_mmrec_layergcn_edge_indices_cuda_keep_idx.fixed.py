# devcheck bug corpus: DC111
# From: https://github.com/enoche/MMRec/issues/21
# From: https://github.com/enoche/MMRec/commit/3de1ff73ba1cb32951c1e82077644cdc0436660d
# The fix (commit 3de1ff7) stops moving the random edge ids to the model's device, so
# the edge list, which stays on the CPU as a plain attribute, is indexed with a CPU
# index, as it already was in the multinomial branch.
# Written for devcheck's tests after the thread; not the project's code.
import random

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn as nn


class LayerGCN(nn.Module):
    def __init__(self, config, interaction_matrix):
        super().__init__()
        self.device = config["device"]
        self.n_users, self.n_items = interaction_matrix.shape
        self.interaction_matrix = interaction_matrix.tocoo().astype(np.float32)
        self.dropout = config["dropout"]
        self.user_embeddings = nn.Parameter(nn.init.xavier_uniform_(torch.empty(self.n_users, config["embedding_size"])))
        self.item_embeddings = nn.Parameter(nn.init.xavier_uniform_(torch.empty(self.n_items, config["embedding_size"])))
        self.pruning_random = False
        self.masked_adj = None
        self.edge_indices, self.edge_values = self.get_edge_info()  # <- fixed

    def _normalize_adj_m(self, indices, adj_size):
        adj = torch.sparse_coo_tensor(indices, torch.ones_like(indices[0]), adj_size)
        row_sum = 1e-7 + torch.sparse.sum(adj, -1).to_dense()
        col_sum = 1e-7 + torch.sparse.sum(adj.t(), -1).to_dense()
        return torch.pow(row_sum, -0.5)[indices[0]] * torch.pow(col_sum, -0.5)[indices[1]]

    def get_edge_info(self):
        rows = torch.from_numpy(self.interaction_matrix.row)
        cols = torch.from_numpy(self.interaction_matrix.col)
        edges = torch.stack([rows, cols]).type(torch.LongTensor)
        values = self._normalize_adj_m(edges, torch.Size((self.n_users, self.n_items)))
        return edges, values

    def pre_epoch_processing(self):
        keep_len = int(self.edge_values.size(0) * (1.0 - self.dropout))
        if self.pruning_random:
            keep_idx = torch.tensor(random.sample(range(self.edge_values.size(0)), keep_len))  # <- fixed
        else:
            keep_idx = torch.multinomial(self.edge_values, keep_len)
        self.pruning_random = True ^ self.pruning_random
        keep_indices = self.edge_indices[:, keep_idx]
        keep_values = self._normalize_adj_m(keep_indices, torch.Size((self.n_users, self.n_items)))
        keep_indices[1] += self.n_users
        all_indices = torch.cat((keep_indices, torch.flip(keep_indices, [0])), 1)
        n = self.n_users + self.n_items
        self.masked_adj = torch.sparse_coo_tensor(all_indices, torch.cat((keep_values, keep_values)), (n, n)).to(self.device)

    def calculate_loss(self, user, pos_item, neg_item):
        ego = torch.cat([self.user_embeddings, self.item_embeddings], 0)
        emb = torch.sparse.mm(self.masked_adj, ego)
        u, i = torch.split(emb, [self.n_users, self.n_items])
        pos = (u[user] * i[pos_item]).sum(1)
        neg = (u[user] * i[neg_item]).sum(1)
        return -torch.nn.functional.logsigmoid(pos - neg).sum()


def train(config, interactions, batches, epochs=4):
    model = LayerGCN(config, interactions).to(config["device"])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.pre_epoch_processing()
        for user, pos_item, neg_item in batches:
            user, pos_item, neg_item = user.to(config["device"]), pos_item.to(config["device"]), neg_item.to(config["device"])
            loss = model.calculate_loss(user, pos_item, neg_item)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    config = {"device": torch.device("cuda" if torch.cuda.is_available() else "cpu"), "dropout": 0.1, "embedding_size": 64}
    inter = sp.random(100, 200, density=0.05, format="coo")
    inter.data[:] = 1.0
    data = [(torch.randint(0, 100, (32,)), torch.randint(0, 200, (32,)), torch.randint(0, 200, (32,)))]
    train(config, inter, data)
