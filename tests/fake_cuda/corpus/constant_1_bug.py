# kind: tensor-constant-in-loss
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/17299
# fix: penalty_factor = torch.ones(y_pred.size(0), dtype=torch.float32, device=y_pred.device)
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
"""A custom regression loss for return forecasting that doubles the squared
error when the predicted direction is wrong; its per-sample factor starts as
torch.ones."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DirectionalMSELoss(nn.Module):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha

    def forward(self, y_pred, y_true):
        penalty_factor = torch.ones(y_pred.size(0), dtype=torch.float32)  # BUG:stray
        wrong_direction = (torch.sign(y_pred) != torch.sign(y_true)).float()
        penalty_factor = penalty_factor + self.alpha * wrong_direction  # BUG:op
        return (penalty_factor * (y_pred - y_true) ** 2).mean()


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1), nn.Flatten(0)).to(device)
criterion = DirectionalMSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(32, 6), torch.randn(32) * 0.1
for step in range(3):
    loss = criterion(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 5))
