# devcheck bug corpus: DC101
# From: https://github.com/meta-pytorch/captum/issues/316
# From: https://github.com/pytorch/captum/pull/317
# The fix (PR #317) takes the device from the model output in _select_targets
# and builds the gather index of a list target there.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def _select_column(output, target):
    target = (target,) if isinstance(target, int) else target
    assert len(target) <= output.dim() - 1, "Cannot choose target column."
    return output[(slice(None), *target)]


def _select_targets(output, target):
    if target is None:
        return output
    n = output.shape[0]
    device = output.device  # <- fixed
    if isinstance(target, (int, tuple)):
        return _select_column(output, target)
    if isinstance(target, torch.Tensor):
        if target.numel() == 1:
            return _select_column(output, int(target.item()))
        return torch.gather(output, 1, target.reshape(n, 1))
    if isinstance(target, list):
        assert len(target) == n, "Target list length does not match output!"
        if isinstance(target[0], int):
            return torch.gather(output, 1, torch.tensor(target, device=device).reshape(n, 1))  # <- fixed
        return torch.stack([output[(i,) + t] for i, t in enumerate(target)])
    raise AssertionError(f"Target type {type(target)} is not valid.")


class Saliency:
    def __init__(self, forward_func):
        self.forward_func = forward_func

    def attribute(self, inputs, target=None, abs=True):
        inputs = inputs.detach().requires_grad_(True)
        selected = _select_targets(self.forward_func(inputs), target)
        (grads,) = torch.autograd.grad(torch.unbind(selected), inputs)
        return grads.abs() if abs else grads


class MultiLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x):
        return self.net(x)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MultiLayer().to(device).eval()
    inputs = torch.randn(4, 3, device=device)
    saliency = Saliency(model)
    print(saliency.attribute(inputs, target=torch.tensor([0, 1, 1, 0], device=device)))
    print(saliency.attribute(inputs, target=[0, 1, 1, 0]))


if __name__ == "__main__":
    main()
