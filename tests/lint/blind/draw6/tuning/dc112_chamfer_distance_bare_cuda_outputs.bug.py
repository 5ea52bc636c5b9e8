# devcheck bug corpus: DC112
# From: https://github.com/otaheri/chamfer_distance/pull/5
# The Chamfer distance autograd function allocates its distance and index
# buffers on the CPU and, for CUDA inputs, moves them with a bare .cuda(): they
# land on the current device, cuda:0, while the point clouds are on the GPU the
# caller chose (cuda:6 in the PR), and the CUDA kernel sees two devices.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
from torch.utils.cpp_extension import load

here = os.path.dirname(os.path.abspath(__file__))
cd = load(name="cd", sources=[os.path.join(here, "chamfer_distance.cpp"), os.path.join(here, "chamfer_distance.cu")])


class ChamferDistanceFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xyz1, xyz2):
        batchsize, n, _ = xyz1.size()
        _, m, _ = xyz2.size()
        xyz1, xyz2 = xyz1.contiguous(), xyz2.contiguous()
        dist1 = torch.zeros(batchsize, n)
        dist2 = torch.zeros(batchsize, m)
        idx1 = torch.zeros(batchsize, n, dtype=torch.int)
        idx2 = torch.zeros(batchsize, m, dtype=torch.int)
        if not xyz1.is_cuda:
            cd.forward(xyz1, xyz2, dist1, dist2, idx1, idx2)
        else:
            dist1 = dist1.cuda()  # <- bug
            dist2 = dist2.cuda()  # <- bug
            idx1 = idx1.cuda()  # <- bug
            idx2 = idx2.cuda()  # <- bug
            cd.forward_cuda(xyz1, xyz2, dist1, dist2, idx1, idx2)
        ctx.save_for_backward(xyz1, xyz2, idx1, idx2)
        return dist1, dist2, idx1, idx2

    @staticmethod
    def backward(ctx, graddist1, graddist2, gradidx1, gradidx2):
        xyz1, xyz2, idx1, idx2 = ctx.saved_tensors
        graddist1, graddist2 = graddist1.contiguous(), graddist2.contiguous()
        gradxyz1 = torch.zeros(xyz1.size())
        gradxyz2 = torch.zeros(xyz2.size())
        if not graddist1.is_cuda:
            cd.backward(xyz1, xyz2, gradxyz1, gradxyz2, graddist1, graddist2, idx1, idx2)
        else:
            gradxyz1 = gradxyz1.cuda()  # <- bug
            gradxyz2 = gradxyz2.cuda()  # <- bug
            cd.backward_cuda(xyz1, xyz2, gradxyz1, gradxyz2, graddist1, graddist2, idx1, idx2)
        return gradxyz1, gradxyz2


class ChamferDistance(torch.nn.Module):
    def forward(self, xyz1, xyz2):
        return ChamferDistanceFunction.apply(xyz1, xyz2)


if __name__ == "__main__":
    device = torch.device("cuda:1" if torch.cuda.device_count() > 1 else "cuda")
    chamfer = ChamferDistance()
    pred = torch.rand(4, 2048, 3, device=device, requires_grad=True)
    target = torch.rand(4, 2048, 3, device=device)
    dist1, dist2, idx1, idx2 = chamfer(pred, target)
    loss = dist1.mean() + dist2.mean()
    loss.backward()
    print(loss.item())
