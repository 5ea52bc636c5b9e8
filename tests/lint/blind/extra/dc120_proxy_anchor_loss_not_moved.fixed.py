# devcheck bug corpus: DC120
# From: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/139
# Fixed: the loss, which has parameters, is moved to the device too.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class ProxyAnchorLoss(nn.Module):
    def __init__(self, num_classes, embedding_size, margin=0.1, alpha=32.0):
        super().__init__()
        self.proxies = nn.Parameter(torch.randn(num_classes, embedding_size))
        nn.init.kaiming_normal_(self.proxies, mode="fan_out")
        self.num_classes = num_classes
        self.margin = margin
        self.alpha = alpha

    def forward(self, embeddings, labels):
        cos = F.linear(F.normalize(embeddings), F.normalize(self.proxies))
        one_hot = F.one_hot(labels, self.num_classes).float()
        pos = torch.exp(-self.alpha * (cos - self.margin)) * one_hot
        neg = torch.exp(self.alpha * (cos + self.margin)) * (1 - one_hot)
        return torch.log1p(pos.sum(0)).mean() + torch.log1p(neg.sum(0)).mean()


def train(loader, device, epochs):
    trunk = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128))
    trunk = trunk.to(device)
    loss_func = ProxyAnchorLoss(num_classes=10, embedding_size=128).to(device)  # <- fixed
    optimizer = torch.optim.Adam(list(trunk.parameters()) + list(loss_func.parameters()))
    for _ in range(epochs):
        for data, labels in loader:
            data, labels = data.to(device), labels.to(device)
            embeddings = trunk(data)
            loss = loss_func(embeddings, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
