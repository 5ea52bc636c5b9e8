# devcheck bug corpus: DC113
# From: https://github.com/xiaxin1998/DHCN/issues/14
# A hypergraph convolution for session recommendation collects the item
# embeddings of every layer in a list and averages them with NumPy
# (`np.sum(final, 0)`). The embeddings live on the GPU with the model, and
# NumPy turns each one into an array: "can't convert cuda:0 device type
# tensor to numpy". The layers' outputs must be summed with torch.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class HyperConv(nn.Module):
    def __init__(self, layers, emb_size=100):
        super().__init__()
        self.layers = layers
        self.emb_size = emb_size

    def forward(self, adjacency, embedding):
        item_embeddings = embedding
        final = [item_embeddings]
        for _ in range(self.layers):
            item_embeddings = torch.sparse.mm(adjacency, item_embeddings)
            final.append(item_embeddings)
        item_embeddings = np.sum(final, 0) / (self.layers + 1)  # <- bug
        return item_embeddings


class DHCN(nn.Module):
    def __init__(self, n_node, emb_size=100, layers=3):
        super().__init__()
        self.embedding = nn.Embedding(n_node, emb_size)
        self.hyper_conv = HyperConv(layers, emb_size)

    def forward(self, adjacency):
        return self.hyper_conv(adjacency, self.embedding.weight)


def train(adjacency, n_node, device):
    model = DHCN(n_node).to(device)
    adjacency = adjacency.to(device)
    item_embeddings = model(adjacency)
    print(item_embeddings.shape)
