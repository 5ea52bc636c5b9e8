# devcheck bug corpus: DC111
# From: https://github.com/pytorch/pytorch/issues/94828
# A custom module wrapped a tensor in nn.Parameter and called .cuda() on the
# result: that returns a plain tensor, so the parameter was not registered
# (absent from model.parameters(), never trained). The fix made the tensor on the
# device inside nn.Parameter (or moved the whole module).
# Written for devcheck's tests after the thread; not the project's code.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.t = torch.nn.Parameter(torch.rand(10), requires_grad=True).cuda()  # <- bug
        self.linear = torch.nn.Linear(10, 20)

    def forward(self, x):
        x = self.t + x
        return self.linear(x)


m = Model().cuda()
print(list(m.parameters()))
