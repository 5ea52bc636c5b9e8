# devcheck bug corpus: DC102
# From: https://github.com/Michaelvll/DeepCCA/issues/17
# Solver.fit() "moves" both views and the two validation views with bare
# x1.to(self.device) statements: Tensor.to returns a copy, which is dropped,
# so the data the model is trained and evaluated on stays on the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import BatchSampler, RandomSampler, SequentialSampler


class MlpNet(nn.Module):
    def __init__(self, layer_sizes, input_size):
        super().__init__()
        sizes = [input_size] + layer_sizes
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.Sigmoid(), nn.BatchNorm1d(b, affine=False)]
        self.layers = nn.Sequential(*layers[:-2])

    def forward(self, x):
        return self.layers(x)


class DeepCCA(nn.Module):
    def __init__(self, layer_sizes1, layer_sizes2, input_size1, input_size2, loss):
        super().__init__()
        self.model1 = MlpNet(layer_sizes1, input_size1)
        self.model2 = MlpNet(layer_sizes2, input_size2)
        self.loss = loss

    def forward(self, x1, x2):
        return self.model1(x1), self.model2(x2)


class Solver:
    def __init__(self, model, epoch_num, batch_size, learning_rate, reg_par, device=torch.device("cpu")):
        self.model = nn.DataParallel(model)
        self.model.to(device)
        self.loss = model.loss
        self.optimizer = torch.optim.RMSprop(self.model.parameters(), lr=learning_rate, weight_decay=reg_par)
        self.epoch_num = epoch_num
        self.batch_size = batch_size
        self.device = device

    def fit(self, x1, x2, vx1=None, vx2=None):
        x1.to(self.device)  # <- bug
        x2.to(self.device)  # <- bug
        data_size = x1.size(0)
        if vx1 is not None and vx2 is not None:
            vx1.to(self.device)  # <- bug
            vx2.to(self.device)  # <- bug
        for epoch in range(self.epoch_num):
            start = time.time()
            self.model.train()
            losses = []
            for batch_idx in BatchSampler(RandomSampler(range(data_size)), batch_size=self.batch_size, drop_last=False):
                self.optimizer.zero_grad()
                o1, o2 = self.model(x1[batch_idx, :], x2[batch_idx, :])
                loss = self.loss(o1, o2)
                losses.append(loss.detach())
                loss.backward()
                self.optimizer.step()
            print(f"epoch {epoch + 1}: {torch.stack(losses).mean().item():.4f} ({time.time() - start:.1f}s)")
            if vx1 is not None and vx2 is not None:
                print(f"  val loss {self.test(vx1, vx2):.4f}")

    def test(self, x1, x2):
        with torch.no_grad():
            self.model.eval()
            losses = []
            for batch_idx in BatchSampler(SequentialSampler(range(x1.size(0))), batch_size=self.batch_size, drop_last=False):
                o1, o2 = self.model(x1[batch_idx, :], x2[batch_idx, :])
                losses.append(self.loss(o1, o2).item())
            return float(np.mean(losses))


def cca_loss(h1, h2, eps=1e-9):
    h1, h2 = h1 - h1.mean(0), h2 - h2.mean(0)
    n = h1.size(0)
    s12 = h1.t() @ h2 / (n - 1)
    s11 = h1.t() @ h1 / (n - 1) + eps * torch.eye(h1.size(1), device=h1.device)
    s22 = h2.t() @ h2 / (n - 1) + eps * torch.eye(h2.size(1), device=h2.device)
    t = torch.linalg.inv(torch.linalg.cholesky(s11)) @ s12 @ torch.linalg.inv(torch.linalg.cholesky(s22)).t()
    return -torch.linalg.svdvals(t).sum()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DeepCCA([256, 256, 10], [256, 256, 10], 784, 784, cca_loss)
    solver = Solver(model, epoch_num=10, batch_size=800, learning_rate=1e-3, reg_par=1e-5, device=device)
    solver.fit(torch.randn(5000, 784), torch.randn(5000, 784), torch.randn(1000, 784), torch.randn(1000, 784))
