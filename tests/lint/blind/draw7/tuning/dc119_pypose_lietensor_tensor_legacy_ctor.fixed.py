# devcheck bug corpus: DC119
# From: https://github.com/pypose/pypose/pull/43
# From: https://github.com/pypose/pypose/commit/24b0afe6e593ac166ea1dc66f33f5eb7ae6e9a4d
# Fixed as the pull request does it: .tensor() views the data as a plain
# torch.Tensor (as_subclass) instead of calling the legacy constructor, so
# the result stays on the LieTensor's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class LieTensor(torch.Tensor):
    @staticmethod
    def __new__(cls, data, ltype):
        return torch.Tensor._make_subclass(cls, data)

    def __init__(self, data, ltype):
        self.ltype = ltype

    @property
    def lshape(self):
        return self.shape[:-1]

    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)  # <- fixed

    def Jr(self):
        return self.ltype.Jr(self)


def vec2skew(x):
    v = x.tensor() if hasattr(x, "ltype") else x
    assert v.shape[-1] == 3, "last dimension must be 3"
    zero = torch.zeros(v.shape[:-1], device=v.device, dtype=v.dtype)
    rows = [
        torch.stack([zero, -v[..., 2], v[..., 1]], dim=-1),
        torch.stack([v[..., 2], zero, -v[..., 0]], dim=-1),
        torch.stack([-v[..., 1], v[..., 0], zero], dim=-1),
    ]
    return torch.stack(rows, dim=-2)


class so3Type:
    def Jr(self, x):
        K = vec2skew(x)
        theta = torch.linalg.norm(x.tensor(), dim=-1, keepdim=True).unsqueeze(-1)
        eye = torch.eye(3, device=x.device, dtype=x.dtype).expand(x.lshape + (3, 3))
        jr = eye - (1 - theta.cos()) / theta ** 2 * K + (theta - theta.sin()) / theta ** 3 * K @ K
        return torch.where(theta > torch.finfo(x.dtype).eps, jr, eye)


def randn_so3(*lsize, device=None):
    return LieTensor(torch.randn(*lsize, 3, device=device), ltype=so3Type())


if __name__ == "__main__":
    a = randn_so3(2, device="cuda:0")
    print(a.Jr())
