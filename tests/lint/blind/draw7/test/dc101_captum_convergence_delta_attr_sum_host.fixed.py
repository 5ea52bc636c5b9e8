# devcheck bug corpus: DC101
# From: https://github.com/meta-pytorch/captum/issues/163
# From: https://github.com/meta-pytorch/captum/commit/5737de1bd418d763d9756e52a2f27e7042f60649
# Integrated gradients with return_convergence_delta=True on a GPU: the
# convergence delta gathers each example's attribution total into a new
# tensor with torch.tensor(...), which lands on the CPU, and subtracts the
# model's output difference, computed on the GPU. Fixed by stacking the
# totals, which keeps them where they were computed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(3, 3)
        self.relu = nn.ReLU()
        self.lin2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.lin2(self.relu(self.lin1(x)))


def _sum_rows(t):
    return t.reshape(t.shape[0], -1).sum(1)


def _run_forward(forward_func, inputs, target):
    out = forward_func(*inputs)
    return out[:, target]


class IntegratedGradients:
    def __init__(self, forward_func):
        self.forward_func = forward_func

    def attribute(self, inputs, baselines, target, n_steps=50,
                  return_convergence_delta=False):
        alphas = [(i + 0.5) / n_steps for i in range(n_steps)]
        total_grads = torch.zeros_like(inputs)
        for alpha in alphas:
            scaled = (baselines + alpha * (inputs - baselines)).requires_grad_()
            out = _run_forward(self.forward_func, (scaled,), target)
            (grad,) = torch.autograd.grad(out.sum(), scaled)
            total_grads = total_grads + grad
        attributions = (inputs - baselines) * total_grads / n_steps
        if return_convergence_delta:
            delta = self.compute_convergence_delta(
                (attributions,), baselines, inputs, target)
            return attributions, delta
        return attributions

    def compute_convergence_delta(self, attributions, start_point, end_point,
                                  target):
        with torch.no_grad():
            start_point = _run_forward(self.forward_func, (start_point,), target)
            end_point = _run_forward(self.forward_func, (end_point,), target)
        row_sums = [_sum_rows(attribution) for attribution in attributions]
        attr_sum = torch.stack([sum(row_sum) for row_sum in zip(*row_sums)])  # <- fixed
        return attr_sum - (end_point - start_point)


def main():
    model = ToyModel()
    model = model.cuda()
    model.eval()
    inputs = torch.rand(2, 3).cuda()
    baseline = torch.zeros(2, 3).cuda()
    ig = IntegratedGradients(model)
    attributions, delta = ig.attribute(inputs, baseline, target=0,
                                       return_convergence_delta=True)
    print(attributions, delta)


if __name__ == "__main__":
    main()
