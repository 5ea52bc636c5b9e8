# devcheck bug corpus: DC113
# From: https://github.com/kkirchheim/pytorch-ood/issues/25
# From: https://github.com/kkirchheim/pytorch-ood/commit/d42335fce003cb8a2c33b6b153a42038a7d97c90
# The kNN out-of-distribution detector hands the model's features to
# scikit-learn with z.detach().numpy(); with the model on the GPU the features
# are CUDA tensors and scoring fails ("can't convert cuda:0 device type tensor
# to numpy").
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from sklearn.neighbors import NearestNeighbors
from torch import tensor


def extract_features(model, data_loader, device):
    zs, ys = [], []
    with torch.no_grad():
        for x, y in data_loader:
            zs.append(model(x.to(device)).cpu())
            ys.append(y)
    return torch.cat(zs), torch.cat(ys)


class KNN:
    def __init__(self, model, **knn_kwargs):
        self.model = model
        self._is_fitted = False
        self.knn = NearestNeighbors(n_neighbors=1, n_jobs=-1, **knn_kwargs)

    def __call__(self, x):
        return self.predict(x)

    def predict(self, x):
        z = self.model(x)
        return self.predict_features(z)

    def predict_features(self, z):
        if not self._is_fitted:
            raise RuntimeError("fit the detector first")
        dist, idx = self.knn.kneighbors(z.detach().numpy(), n_neighbors=1, return_distance=True)  # <- bug
        return tensor(dist)

    def fit_features(self, z, labels):
        known = labels >= 0
        if not known.any():
            raise ValueError("No IN samples")
        self.knn.fit(z[known].numpy())
        self._is_fitted = True
        return self

    def fit(self, loader, device="cpu"):
        z, y = extract_features(self.model, loader, device)
        return self.fit_features(z, y)


def evaluate(train_loader, test_loader):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 512), nn.ReLU(), nn.Linear(512, 128)).to(device).eval()
    detector = KNN(model)
    detector.fit(train_loader, device=device)
    scores = []
    with torch.no_grad():
        for x, _ in test_loader:
            scores.append(detector(x.to(device)))
    return torch.cat(scores)
