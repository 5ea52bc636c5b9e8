# devcheck bug corpus: DC101
# From: https://github.com/StanfordASL/stlcg/pull/5
# The Until formula's robustness trace fills a work tensor made with
# torch.ones(LHS.shape) on the CPU with the CUDA robustness of its first
# subformula and stacks it beside the CUDA LHS: on a GPU the formula fails.
# Written for devcheck's tests after the thread; not the project's code.
import torch

LARGE_NUMBER = 1e4


class Minish(torch.nn.Module):
    def forward(self, x, scale, dim=1, keepdim=True):
        if scale > 0:
            return -torch.logsumexp(-x * scale, dim=dim, keepdim=keepdim) / scale
        return x.min(dim, keepdim=keepdim)[0]


class Maxish(torch.nn.Module):
    def forward(self, x, scale, dim=1, keepdim=True):
        if scale > 0:
            return torch.logsumexp(x * scale, dim=dim, keepdim=keepdim) / scale
        return x.max(dim, keepdim=keepdim)[0]


class STL_Formula(torch.nn.Module):
    def robustness_trace(self, trace, pscale=1, scale=-1, **kwargs):
        raise NotImplementedError

    def robustness(self, inputs, time=0, pscale=1, scale=-1):
        return self.robustness_trace(inputs, pscale=pscale, scale=scale)[:, -(time + 1), :].unsqueeze(1)

    def forward(self, inputs, pscale=1, scale=-1, **kwargs):
        return self.robustness_trace(inputs, pscale=pscale, scale=scale, **kwargs)


class Identity(STL_Formula):
    def robustness_trace(self, trace, pscale=1, scale=-1, **kwargs):
        return trace


class Always(STL_Formula):
    def __init__(self, subformula):
        super().__init__()
        self.subformula = subformula
        self.minish = Minish()

    def robustness_trace(self, trace, pscale=1, scale=-1, **kwargs):
        sub = self.subformula(trace, pscale=pscale, scale=scale)
        return self.minish(sub, scale=scale, dim=1, keepdim=True)


class Until(STL_Formula):
    def __init__(self, subformula1, subformula2):
        super().__init__()
        self.subformula1 = subformula1
        self.subformula2 = subformula2

    def robustness_trace(self, inputs, pscale=1, scale=-1, **kwargs):
        x, y = inputs
        trace1 = self.subformula1(x, pscale=pscale, scale=scale)
        trace2 = self.subformula2(y, pscale=pscale, scale=scale)
        alw = Always(subformula=Identity())
        minish, maxish = Minish(), Maxish()
        LHS = trace2.unsqueeze(-1).repeat([1, 1, 1, trace2.shape[1]]).permute(0, 3, 2, 1)
        RHS = torch.ones(LHS.shape) * -LARGE_NUMBER  # <- bug
        for i in range(trace2.shape[1]):
            RHS[:, i:, :, i] = alw(trace1[:, i:, :], pscale=pscale, scale=scale)
        stacked = torch.stack([LHS, RHS], dim=-1)
        return maxish(minish(stacked, scale=scale, dim=-1).squeeze(-1), scale=scale, dim=-1).squeeze(-1)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(4, 20, 1, device=device, requires_grad=True)
    y = torch.randn(4, 20, 1, device=device)
    formula = Until(Identity(), Identity())
    robustness = formula.robustness((x, y), scale=10)
    robustness.sum().backward()
