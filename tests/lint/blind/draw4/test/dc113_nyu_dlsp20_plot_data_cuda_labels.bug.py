# devcheck bug corpus: DC113
# From: https://github.com/Atcold/NYU-DLSP20/issues/11
# From: https://github.com/Atcold/NYU-DLSP20/commit/74db3e6b3607a5dc89f07f7454d68324fa3e3936
# The spiral-classification notebook makes its points X and labels y on the chosen
# device; the plotting helper copies X back with X.cpu() but hands y, still on the GPU,
# to matplotlib as the colours, which turns it into a NumPy array: "can't convert CUDA
# tensor to numpy".
# (The notebook's cells and its plot_lib helpers are written here as one script.)
# Written for devcheck's tests after the thread; not the project's code.
import math

import numpy as np
import torch
from matplotlib import pyplot as plt
from torch import nn


def plot_data(X, y, zoom=1):
    X = X.cpu()
    plt.scatter(X.numpy()[:, 0], X.numpy()[:, 1], c=y, s=20, cmap=plt.cm.Spectral)  # <- bug
    plt.axis("square")
    plt.axis(np.array((-1.1, 1.1, -1.1, 1.1)) * zoom)
    plt.axis("off")


def plot_model(X, y, model):
    model.cpu()
    mesh = np.arange(-1.1, 1.1, 0.01)
    xx, yy = np.meshgrid(mesh, mesh)
    with torch.no_grad():
        data = torch.from_numpy(np.vstack((xx.reshape(-1), yy.reshape(-1))).T).float()
        Z = model(data).detach()
    Z = np.argmax(Z, axis=1).reshape(xx.shape)
    plt.contourf(xx, yy, Z, cmap=plt.cm.Spectral, alpha=0.3)
    plot_data(X, y)


device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
N, D, C, H = 1000, 2, 3, 100
X = torch.zeros(N * C, D).to(device)
y = torch.zeros(N * C, dtype=torch.long).to(device)
for c in range(C):
    t = torch.linspace(0, 1, N)
    inner = torch.linspace((2 * math.pi / C) * c, (2 * math.pi / C) * (2 + c), N)
    for k, ix in enumerate(range(N * c, N * (c + 1))):
        X[ix] = t[k] * torch.FloatTensor((math.sin(inner[k]), math.cos(inner[k])))
        y[ix] = c

model = nn.Sequential(nn.Linear(D, H), nn.ReLU(), nn.Linear(H, C))
model.to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-5)
for step in range(1000):
    y_pred = model(X)
    loss = criterion(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

plot_model(X, y, model)
