# devcheck bug corpus: DC101
# From: https://github.com/rballester/tntorch/issues/25
# From: https://github.com/rballester/tntorch/commit/e26195a0499076ce8750044c392ee8f511e26732
# Adding a number to a tensor-train whose cores live on the GPU: __add__ turns
# the number into a rank-1 tensor-train of torch.ones cores made without
# device=, on the CPU, and the block-diagonal sum concatenates them with the
# GPU cores: "All input tensors must be on the same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch


class TensorTrain:
    def __init__(self, data, rank=10, device=None):
        if isinstance(data, list):
            self.cores = data
            return
        mat = data.reshape(data.shape[0], -1)
        u, s, vh = torch.linalg.svd(mat, full_matrices=False)
        r = min(rank, s.shape[0])
        first = (u[:, :r] * s[:r]).reshape(1, data.shape[0], r)
        second = vh[:r, :].reshape(r, data.shape[1], 1)
        self.cores = [first.to(device), second.to(device)]

    def dim(self):
        return len(self.cores)

    @property
    def shape(self):
        return [c.shape[1] for c in self.cores]

    def full(self):
        out = self.cores[0]
        for core in self.cores[1:]:
            out = torch.einsum("...i,ijk->...jk", out, core)
        return out.squeeze(0).squeeze(-1)

    def __add__(self, other):
        if not isinstance(other, TensorTrain):
            factor = other
            other = TensorTrain([torch.ones([1, self.shape[n], 1]) for n in range(self.dim())])  # <- bug
            other.cores[0].data *= factor
        cores = []
        for n in range(self.dim()):
            core1 = self.cores[n]
            core2 = other.cores[n]
            c1_st = torch.zeros([core2.shape[0], self.shape[n], core1.shape[2]], device=core1.device)
            c2_st = torch.zeros([core1.shape[0], self.shape[n], core2.shape[2]], device=core2.device)
            column1 = torch.cat([core1, c1_st], dim=0)
            column2 = torch.cat([c2_st, core2], dim=0)
            c = torch.cat([column1, column2], dim=2)  # <- bug
            if n == 0:
                c = c.sum(dim=0, keepdim=True)
            if n == self.dim() - 1:
                c = c.sum(dim=2, keepdim=True)
            cores.append(c)
        return TensorTrain(cores)

    def __radd__(self, other):
        return self.__add__(other)


if __name__ == "__main__":
    p = torch.linspace(1, 10000, 100000).reshape(1000, 100).cuda()
    t = TensorTrain(p, device=p.device)
    print((t + 2).full()[:2, :4])
