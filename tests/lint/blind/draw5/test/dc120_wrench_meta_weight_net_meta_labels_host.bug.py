# devcheck bug corpus: DC120
# From: https://github.com/JieyuZ2/wrench/issues/4
# From: https://github.com/JieyuZ2/wrench/commit/1f989f0e3069efd0743391423655ee3eba81e5f1
# Meta-Weight-Net training on weak labels: the meta step draws a batch from
# the clean validation loader and feeds its 'labels' to the loss beside the
# functional model's outputs on the GPU, without moving them: cross_entropy
# fails with "Expected all tensors to be on the same device".
# Written for devcheck's tests after the thread; not the project's code.
import higher
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class FeatureDataset(Dataset):
    def __init__(self, n, dim, n_class):
        self.features = torch.randn(n, dim)
        self.labels = torch.randint(0, n_class, (n,))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"ids": idx, "features": self.features[idx], "labels": self.labels[idx]}


class MLPBackbone(nn.Module):
    def __init__(self, dim, n_class):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, n_class))

    def forward(self, batch):
        device = next(self.parameters()).device
        return self.net(batch["features"].to(device))


class VNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


def sample_batch(loader):
    while True:
        for batch in loader:
            yield batch


def fit(dataset_train, dataset_valid, y_train, n_steps=50, device="cuda"):
    y_train = torch.as_tensor(y_train).to(device)
    model = MLPBackbone(16, 3).to(device)
    vnet = VNet(32).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer_vnet = torch.optim.Adam(vnet.parameters(), lr=1e-3)
    train_loader = DataLoader(dataset_train, batch_size=32, shuffle=True)
    meta_loader = sample_batch(DataLoader(dataset_valid, batch_size=32, shuffle=True))
    step = 0
    for batch in train_loader:
        step += 1
        target = y_train[batch["ids"].to(device)]
        optimizer_vnet.zero_grad()
        with higher.innerloop_ctx(model, optimizer, device=device) as (meta_model, diffopt):
            cost = F.cross_entropy(meta_model(batch), target, reduction="none").reshape(-1, 1)
            diffopt.step(torch.sum(cost * vnet(cost.data)) / len(cost))
            meta_batch = next(meta_loader)
            outputs = meta_model(meta_batch)
            meta_target = meta_batch["labels"]  # <- bug
            meta_loss = F.cross_entropy(outputs, meta_target)  # <- bug
            meta_loss.backward()
        optimizer_vnet.step()
        optimizer.zero_grad()
        cost = F.cross_entropy(model(batch), target, reduction="none").reshape(-1, 1)
        with torch.no_grad():
            w_new = vnet(cost.data)
        (torch.sum(cost * w_new) / len(cost)).backward()
        optimizer.step()
        if step >= n_steps:
            break
    return model


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train, valid = FeatureDataset(512, 16, 3), FeatureDataset(128, 16, 3)
    noisy_labels = torch.randint(0, 3, (512,))
    fit(train, valid, noisy_labels, device=device)
