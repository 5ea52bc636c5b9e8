# devcheck bug corpus: DC101
# From: https://github.com/shaham-lab/SpectralNet/issues/4
# The fix makes the neighbours' tensor with device=batch_x.device, so it is
# joined to the batch on the batch's own device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from annoy import AnnoyIndex
from torch.utils.data import DataLoader, TensorDataset


def build_ann(X):
    X = X.view(X.size(0), -1)
    index = AnnoyIndex(X[0].shape[0], "euclidean")
    for i, x_i in enumerate(X):
        index.add_item(i, x_i.tolist())
    index.build(50)
    index.save("ann_index.ann")


def make_batch_for_sparse_graph(batch_x):
    keep = batch_x.shape[0] // 5
    new_batch_x = batch_x[:keep]
    index = AnnoyIndex(batch_x[0].shape[0], "euclidean")
    index.load("ann_index.ann")
    for x in new_batch_x:
        neighbours = index.get_nns_by_vector(x.detach().cpu().numpy(), 5)
        nn_tensors = torch.tensor([index.get_item_vector(i) for i in neighbours[1:]], device=batch_x.device)  # <- fixed
        new_batch_x = torch.cat((new_batch_x, nn_tensors))
    return new_batch_x


class SpectralNetModel(nn.Module):
    def __init__(self, in_dim, n_clusters):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU(), nn.Linear(256, n_clusters), nn.Tanh())

    def forward(self, x):
        y = self.net(x)
        q, _ = torch.linalg.qr(y)
        return q


class SpectralTrainer:
    def __init__(self, device, is_sparse=False):
        self.device = device
        self.is_sparse = is_sparse

    def train(self, X, n_clusters, epochs=5):
        model = SpectralNetModel(X.shape[1], n_clusters).to(self.device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        loader = DataLoader(TensorDataset(X), batch_size=512, shuffle=True)
        if self.is_sparse:
            build_ann(X)
        for _ in range(epochs):
            for (x,) in loader:
                x = x.to(self.device)
                if self.is_sparse:
                    x = make_batch_for_sparse_graph(x)
                W = torch.exp(-torch.cdist(x, x) ** 2)
                y = model(x)
                loss = (W * torch.cdist(y, y) ** 2).sum() / (x.shape[0] ** 2)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        return model


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    X = torch.randn(5000, 32)
    trainer = SpectralTrainer(device, is_sparse=True)
    trainer.train(X, n_clusters=10)
