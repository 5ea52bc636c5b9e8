# devcheck bug corpus: DC112
# From: https://github.com/odlgroup/odl/pull/1493
# Fixed: forward returns the operator's result to the input's device, and
# backward the gradient to the device of grad_output (`.to(x.device)`).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import odl
import torch
from torch import nn


class OperatorAsAutogradFunction(torch.autograd.Function):
    def __init__(self, operator):
        super().__init__()
        self.operator = operator

    def forward(self, input):
        if not self.operator.is_linear:
            self.save_for_backward(input)
        input_arr = input.cpu().detach().numpy()
        op_result = self.operator(input_arr)
        if np.isscalar(op_result):
            op_result = np.array(op_result, ndmin=1, dtype=self.operator.domain.dtype)
        tensor = torch.from_numpy(np.array(op_result, copy=False, ndmin=1))
        tensor = tensor.to(input.device)  # <- fixed
        return tensor

    def backward(self, grad_output):
        grad = None
        if self.needs_input_grad[0]:
            grad_output_arr = grad_output.cpu().numpy()
            if self.operator.is_linear:
                adjoint = self.operator.adjoint
            else:
                (input,) = self.saved_tensors
                adjoint = self.operator.derivative(input.cpu().numpy()).adjoint
            grad_odl = adjoint(grad_output_arr)
            grad = torch.from_numpy(np.array(grad_odl, copy=False, ndmin=1))
            grad = grad.to(grad_output.device)  # <- fixed
        return grad


class FilteredBackprojectionNet(nn.Module):
    def __init__(self, ray_trafo):
        super().__init__()
        self.fbp = odl.tomo.fbp_op(ray_trafo)
        self.refine = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 1, 3, padding=1))

    def forward(self, sinogram):
        recos = torch.stack([OperatorAsAutogradFunction(self.fbp)(s) for s in sinogram[:, 0]])
        return recos.unsqueeze(1) + self.refine(recos.unsqueeze(1))


def main():
    space = odl.uniform_discr([-20, -20], [20, 20], [128, 128], dtype="float32")
    ray_trafo = odl.tomo.RayTransform(space, odl.tomo.parallel_beam_geometry(space))
    device = torch.device("cuda:1")
    net = FilteredBackprojectionNet(ray_trafo).to(device)
    phantom = odl.phantom.shepp_logan(space, modified=True)
    sinogram = torch.from_numpy(ray_trafo(phantom).asarray()).to(device)[None, None]
    return net(sinogram)
