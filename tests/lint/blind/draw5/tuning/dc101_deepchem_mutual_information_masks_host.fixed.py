# devcheck bug corpus: DC101
# From: https://github.com/deepchem/deepchem/pull/3301
# From: https://github.com/deepchem/deepchem/commit/b8e29cf7fe0c2c3c4c9d80e82a656fbbc4a5f6e4
# Fixed: both losses take the device of the encodings they are given and
# move their masks there.
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def positive_expectation(p, measure="JSD"):
    return math.log(2.0) - F.softplus(-p) if measure == "JSD" else p


def negative_expectation(q, measure="JSD"):
    return F.softplus(-q) + q - math.log(2.0) if measure == "JSD" else q


class GlobalMutualInformationLoss:
    def _create_pytorch_loss(self, measure="JSD"):
        def loss(global_enc, global_enc2):
            device = global_enc.device  # <- fixed
            num_graphs = global_enc.shape[0]
            pos_mask = torch.eye(num_graphs).to(device)  # <- fixed
            neg_mask = 1 - pos_mask
            res = torch.mm(global_enc, global_enc2.t())
            e_pos = (positive_expectation(res * pos_mask, measure) * pos_mask).sum() / pos_mask.sum()
            e_neg = (negative_expectation(res * neg_mask, measure) * neg_mask).sum() / neg_mask.sum()
            return e_neg - e_pos
        return loss


class LocalMutualInformationLoss:
    def _create_pytorch_loss(self, measure="JSD"):
        def loss(local_enc, global_enc, batch_graph_index):
            device = local_enc.device  # <- fixed
            num_graphs, num_nodes = global_enc.shape[0], local_enc.shape[0]
            pos_mask = torch.zeros((num_nodes, num_graphs)).to(device)  # <- fixed
            neg_mask = torch.ones((num_nodes, num_graphs)).to(device)  # <- fixed
            for nodeidx, graphidx in enumerate(batch_graph_index):
                pos_mask[nodeidx][graphidx] = 1.0
                neg_mask[nodeidx][graphidx] = 0.0
            res = torch.mm(local_enc, global_enc.t())
            e_pos = (positive_expectation(res * pos_mask, measure) * pos_mask).sum() / pos_mask.sum()
            e_neg = (negative_expectation(res * neg_mask, measure) * neg_mask).sum() / neg_mask.sum()
            return e_neg - e_pos
        return loss


class InfoGraphModel(nn.Module):
    def __init__(self, num_feat=10, dim=16):
        super().__init__()
        self.encoder = nn.Linear(num_feat, dim)
        self.global_d = nn.Linear(dim, dim)
        self.local_d = nn.Linear(dim, dim)

    def forward(self, node_features, graph_index, num_graphs):
        feature_map = F.relu(self.encoder(node_features))
        pooled = torch.zeros(num_graphs, feature_map.shape[1], device=feature_map.device)
        pooled = pooled.index_add(0, graph_index, feature_map)
        return self.global_d(pooled), self.local_d(feature_map)


def train(batches, epochs=10):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = InfoGraphModel().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    global_loss = GlobalMutualInformationLoss()._create_pytorch_loss()
    local_loss = LocalMutualInformationLoss()._create_pytorch_loss()
    for _ in range(epochs):
        for node_features, graph_index, num_graphs in batches:
            node_features, graph_index = node_features.to(device), graph_index.to(device)
            g_enc, l_enc = model(node_features, graph_index, num_graphs)
            loss = local_loss(l_enc, g_enc, graph_index) + global_loss(g_enc, g_enc.flip(0))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
