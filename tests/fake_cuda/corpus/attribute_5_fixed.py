# kind: plain-attribute
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/meta-pytorch/botorch/pull/1035
# fix: store the transform's tensor attributes as buffers (register_buffer), so Module.to() moves them
"""A surrogate regressor with an input-normalising transform whose bounds are
plain tensor attributes learnt from the training data."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Normalize(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("mins", torch.zeros(1, d))
        self.register_buffer("ranges", torch.ones(1, d))

    def learn_bounds(self, X):
        self.mins = X.min(dim=0, keepdim=True).values
        self.ranges = X.max(dim=0, keepdim=True).values - self.mins

    def forward(self, X):
        return (X - self.mins) / self.ranges


train_X = torch.rand(20, 3) * torch.tensor([10.0, 1.0, 100.0])
train_Y = (train_X[:, :1] / 10 - train_X[:, 1:2]) ** 2
transform = Normalize(3)
transform.learn_bounds(train_X)
model = nn.Sequential(transform, nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(5):
    loss = ((model(train_X.to(device)) - train_Y.to(device)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("mse", round(loss.item(), 4))
