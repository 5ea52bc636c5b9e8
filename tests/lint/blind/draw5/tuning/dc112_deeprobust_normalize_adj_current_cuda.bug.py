# devcheck bug corpus: DC112
# From: https://github.com/DSE-MSU/DeepRobust/issues/74
# From: https://github.com/DSE-MSU/DeepRobust/commit/5c85bb69760bef9f37e1284cb136d45d60b8126c
# DeepRobust's GCN normalises the adjacency matrix with a helper that picks
# torch.device("cuda") whenever the matrix is on a GPU: "cuda" is the current
# device, cuda:0, so with the model and the graph on cuda:2 the identity
# added to the adjacency lands on another card.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_adj_tensor(adj):
    device = torch.device("cuda" if adj.is_cuda else "cpu")  # <- bug
    mx = adj + torch.eye(adj.shape[0]).to(device)
    r_inv = mx.sum(1).pow(-1 / 2).flatten()
    r_inv[torch.isinf(r_inv)] = 0.0
    r_mat_inv = torch.diag(r_inv)
    return r_mat_inv @ mx @ r_mat_inv


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, adj):
        return adj @ (x @ self.weight)


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, device=None):
        super().__init__()
        self.device = device
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        return F.log_softmax(self.gc2(F.dropout(x, 0.5, self.training), adj), dim=1)

    def fit(self, features, adj, labels, idx_train, train_iters=200):
        features = torch.FloatTensor(features).to(self.device)
        adj = torch.FloatTensor(adj).to(self.device)
        labels = torch.LongTensor(labels).to(self.device)
        adj_norm = normalize_adj_tensor(adj)
        optimizer = torch.optim.Adam(self.parameters(), lr=0.01, weight_decay=5e-4)
        for _ in range(train_iters):
            self.train()
            optimizer.zero_grad()
            loss = F.nll_loss(self(features, adj_norm)[idx_train], labels[idx_train])
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    import numpy as np

    device = torch.device("cuda:2" if torch.cuda.is_available() else "cpu")
    n = 100
    adj = (np.random.rand(n, n) > 0.95).astype(np.float32)
    features = np.random.rand(n, 16).astype(np.float32)
    labels = np.random.randint(0, 3, n)
    model = GCN(nfeat=16, nhid=16, nclass=3, device=device).to(device)
    model.fit(features, adj, labels, idx_train=np.arange(60))
