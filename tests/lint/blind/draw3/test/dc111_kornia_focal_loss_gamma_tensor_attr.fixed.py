# devcheck bug corpus: DC111
# From: https://github.com/kornia/kornia/pull/224
# Fixed (the maintainers' refactor): gamma is kept as a Python float, which
# torch.pow takes with a tensor on any device.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


def one_hot(labels, num_classes, device, dtype, eps=1e-6):
    shape = labels.shape
    out = torch.zeros(shape[0], num_classes, *shape[1:], device=device, dtype=dtype)
    return out.scatter_(1, labels.unsqueeze(1), 1.0) + eps


class FocalLoss(nn.Module):
    def __init__(self, alpha: float, gamma: Optional[float] = 2.0, reduction: Optional[str] = "none") -> None:
        super().__init__()
        self.alpha: float = alpha
        self.gamma: float = gamma  # <- fixed
        self.reduction: Optional[str] = reduction
        self.eps: float = 1e-6

    def forward(self, input: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        if not input.device == target.device:
            raise ValueError("input and target must be in the same device")
        input_soft = F.softmax(input, dim=1) + self.eps
        target_one_hot = one_hot(target, num_classes=input.shape[1], device=input.device, dtype=input.dtype)
        weight = torch.pow(1.0 - input_soft, self.gamma)  # <- fixed
        focal = -self.alpha * weight * torch.log(input_soft)
        loss_tmp = torch.sum(target_one_hot * focal, dim=1)
        if self.reduction == "none":
            return loss_tmp
        if self.reduction == "mean":
            return torch.mean(loss_tmp)
        if self.reduction == "sum":
            return torch.sum(loss_tmp)
        raise NotImplementedError(f"Invalid reduction mode: {self.reduction}")


if __name__ == "__main__":
    criterion = FocalLoss(alpha=0.5, gamma=2.0, reduction="mean")
    logits = torch.randn(2, 5, 8, 8, device="cuda", requires_grad=True)
    labels = torch.randint(0, 5, (2, 8, 8), device="cuda")
    criterion(logits, labels).backward()
