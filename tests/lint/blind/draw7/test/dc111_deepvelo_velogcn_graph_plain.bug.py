# devcheck bug corpus: DC111
# From: https://github.com/bowang-lab/DeepVelo/issues/1
# From: https://github.com/bowang-lab/DeepVelo/commit/9bc06a642befbeb58aae98bb6d952ce5e78f704e
# VeloGCN keeps the cell-neighbourhood DGL graph as a plain attribute
# (self.g); the trainer moves the model with model.to(device), which moves the
# GraphConv weights but not the graph, so on the GPU each GraphConv gets a
# CPU graph with CUDA features (newer DGL refuses the mix).
# Written for devcheck's tests after the thread; not the project's code.
import dgl
import torch
import torch.nn as nn
import torch.nn.functional as F
from dgl.nn import GraphConv


class VeloGCN(nn.Module):
    def __init__(self, g, n_genes, layers=[64], dropout=0.2, activation=F.relu):
        super().__init__()
        self.g = g  # <- bug
        self.layers = nn.ModuleList()
        self.layers.append(GraphConv(n_genes * 2, layers[0], activation=activation))
        for i in range(len(layers) - 1):
            self.layers.append(GraphConv(layers[i], layers[i + 1], activation=activation))
        self.layers.append(GraphConv(layers[-1], n_genes * 2))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x_u, x_s):
        n_gene = x_u.shape[1]
        h = torch.cat([x_u, x_s], dim=1)
        for layer in self.layers:
            h = layer(self.g, h)
            h = self.dropout(h)
        beta, gamma = h[:, :n_gene], h[:, n_gene:]
        return beta * x_u + gamma * x_s


class Trainer:
    def __init__(self, model, x_u, x_s, target, n_gpu=1):
        self.device = torch.device("cuda:0" if n_gpu > 0 and torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.x_u, self.x_s, self.target = x_u, x_s, target
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def train(self, epochs=100):
        for epoch in range(epochs):
            self.model.train()
            pred = self.model(self.x_u.to(self.device), self.x_s.to(self.device))
            loss = F.mse_loss(pred, self.target.to(self.device))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if epoch % 10 == 0:
                print(epoch, float(loss))


def main():
    n_cells, n_genes = 500, 100
    src = torch.randint(0, n_cells, (5000,))
    dst = torch.randint(0, n_cells, (5000,))
    g = dgl.add_self_loop(dgl.graph((src, dst), num_nodes=n_cells))
    x_u, x_s = torch.rand(n_cells, n_genes), torch.rand(n_cells, n_genes)
    target = torch.randn(n_cells, n_genes)
    model = VeloGCN(g, n_genes)
    Trainer(model, x_u, x_s, target).train()


if __name__ == "__main__":
    main()
