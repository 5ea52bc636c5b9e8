# devcheck bug corpus: DC101
# From: https://github.com/chemprop/chemprop/pull/1296
# Fixed: the default weights are made on the targets' device,
# torch.ones(..., device=targets.device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchmetrics
from torch import Tensor


class ChempropMetric(torchmetrics.Metric):
    is_differentiable = True
    higher_is_better = False
    full_state_update = False

    def __init__(self, task_weights=1.0):
        super().__init__()
        task_weights = torch.as_tensor(task_weights, dtype=torch.float).view(1, -1)
        self.register_buffer("task_weights", task_weights)
        self.add_state("total_loss", default=torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("num_samples", default=torch.tensor(0), dist_reduce_fx="sum")

    def update(self, preds: Tensor, targets: Tensor, mask: Tensor | None = None, weights: Tensor | None = None) -> None:
        mask = torch.ones_like(targets, dtype=torch.bool) if mask is None else mask
        weights = (  # <- fixed
            torch.ones(targets.shape[0], dtype=torch.float, device=targets.device)  # <- fixed
            if weights is None  # <- fixed
            else weights  # <- fixed
        )  # <- fixed
        L = self._calc_unreduced_loss(preds, targets, mask, weights)
        L = L * weights.view(-1, 1) * self.task_weights * mask
        self.total_loss += L.sum()
        self.num_samples += mask.sum()

    def compute(self):
        return self.total_loss / self.num_samples

    def _calc_unreduced_loss(self, preds, targets, mask, weights) -> Tensor:
        raise NotImplementedError


class BCELoss(ChempropMetric):
    def _calc_unreduced_loss(self, preds, targets, *args) -> Tensor:
        return F.binary_cross_entropy_with_logits(preds, targets, reduction="none")


class BinaryClassificationFFN(nn.Module):
    def __init__(self, n_tasks, criterion, input_dim=300):
        super().__init__()
        self.ffn = nn.Sequential(nn.Linear(input_dim, 300), nn.ReLU(), nn.Linear(300, n_tasks))
        self.criterion = criterion

    def forward(self, x):
        return self.ffn(x)


if __name__ == "__main__":
    task_dim = 3
    predictor = BinaryClassificationFFN(n_tasks=task_dim, criterion=BCELoss(task_weights=torch.ones(task_dim)))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    predictor.to(device=device)
    preds = predictor(torch.randn(10, 300).to(device=device))
    loss = predictor.criterion(preds, torch.ones((10, task_dim)).to(device=device))
    print(loss)
