# devcheck bug corpus: DC120
# From: https://github.com/opendataval/opendataval/pull/37
# Fixed: each metric first moves its second tensor to the first one's device
# (b = b.to(a.device)), so the CPU labels meet the GPU predictions there.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def accuracy(a: torch.Tensor, b: torch.Tensor) -> float:
    b = b.to(a.device)  # <- fixed
    return (a.argmax(dim=1) == b.argmax(dim=1)).float().mean().item()  # <- fixed


def neg_mse(a: torch.Tensor, b: torch.Tensor) -> float:
    b = b.to(a.device)  # <- fixed
    return -F.mse_loss(a, b).item()  # <- fixed


class ClassifierMLP(nn.Module):
    def __init__(self, input_dim, num_classes, device=torch.device("cpu")):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(input_dim, 25), nn.ReLU(), nn.Linear(25, num_classes), nn.Softmax(-1))
        self.device = device
        self.to(device)

    def fit(self, x_train, y_train, epochs=1, batch_size=32):
        optimizer = torch.optim.Adam(self.parameters())
        for _ in range(epochs):
            for x, y in DataLoader(TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True):
                loss = F.binary_cross_entropy(self.net(x.to(self.device)), y.to(self.device))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        return self

    def predict(self, x):
        self.eval()
        with torch.no_grad():
            return self.net(x.to(device=self.device))


def remove_low_value_points(data_values, x_train, y_train, x_test, y_test, metric=accuracy):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    sorted_indices = np.argsort(data_values)
    perf = []
    for bin_end in range(5, len(data_values) - 1, 10):
        coalition = torch.as_tensor(sorted_indices[:bin_end])
        new_model = ClassifierMLP(x_train.size(1), y_train.size(1), device=device)
        new_model.fit(x_train[coalition], y_train[coalition])
        y_hat = new_model.predict(x_test)
        perf.append(metric(y_hat, y_test))
    return perf
