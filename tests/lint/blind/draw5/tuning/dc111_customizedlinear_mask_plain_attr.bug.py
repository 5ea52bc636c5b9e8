# devcheck bug corpus: DC111
# From: https://github.com/uchida-takumi/CustomizedLinear/pull/1
# CustomizedLinear keeps its connection mask as a plain tensor attribute; a
# model built from it and moved to the GPU moves the weight and bias but not
# the mask, so the masked matmul of the custom autograd function mixes a CPU
# mask with GPU weights.
# Written for devcheck's tests after the thread; not the project's code.
import math

import numpy as np
import torch
import torch.nn as nn


class CustomizedLinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None, mask=None):
        if mask is not None:
            weight = weight * mask
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        ctx.save_for_backward(input, weight, bias, mask)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias, mask = ctx.saved_tensors
        grad_input = grad_output.mm(weight)
        grad_weight = grad_output.t().mm(input)
        if mask is not None:
            grad_weight = grad_weight * mask
        grad_bias = grad_output.sum(0) if bias is not None else None
        return grad_input, grad_weight, grad_bias, None


class CustomizedLinear(nn.Module):
    def __init__(self, mask, bias=True):
        super().__init__()
        self.input_features, self.output_features = mask.shape[0], mask.shape[1]
        if isinstance(mask, torch.Tensor):
            self.mask = mask.type(torch.float).t()  # <- bug
        else:
            self.mask = torch.tensor(mask, dtype=torch.float).t()  # <- bug
        self.weight = nn.Parameter(torch.Tensor(self.output_features, self.input_features))
        if bias:
            self.bias = nn.Parameter(torch.Tensor(self.output_features))
        else:
            self.register_parameter("bias", None)
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)
        self.weight.data = self.weight.data * self.mask

    def forward(self, input):
        return CustomizedLinearFunction.apply(input, self.weight, self.bias, self.mask)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    mask = torch.tensor(np.random.choice([0, 1], size=(2, 5)))
    model = nn.Sequential(CustomizedLinear(mask, bias=None), nn.Linear(5, 1, bias=False)).to(device)
    x, y = torch.randn(8, 2, device=device), torch.randn(8, 1, device=device)
    for t in range(3):
        loss = (model(x) - y).abs().mean()
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                if param.requires_grad:
                    param -= 0.1 * param.grad
