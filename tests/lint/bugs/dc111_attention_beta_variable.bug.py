# devcheck bug corpus: DC111
# From: https://github.com/dawnranger/pytorch-AGNN/issues/5
# The first propagation layer's beta is a plain Variable(torch.zeros(1)) (not
# trained by design): it stays on the CPU when the model moves, and forward
# fails with "expected device cpu but got device cuda:0".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.nn.parameter import Parameter


class GraphAttentionLayer(nn.Module):
    def __init__(self, requires_grad=True):
        super().__init__()
        if requires_grad:
            self.beta = Parameter(torch.Tensor(1).uniform_(0, 1), requires_grad=requires_grad)
        else:
            self.beta = Variable(torch.zeros(1), requires_grad=requires_grad)  # <- bug

    def forward(self, x, adj):
        norm2 = torch.norm(x, 2, 1).view(-1, 1)
        cos = self.beta * torch.div(torch.mm(x, x.t()), torch.mm(norm2, norm2.t()) + 1e-7)
        masked = cos + (1.0 - adj) * -1e9
        return torch.mm(F.softmax(masked, dim=1), x)
