# A PyTorch program with planted device bugs on devcheck's fake device (the
# library is argv[1], the folder of devcheck_fake.py argv[2]): per-sample copies to the device, then a tensor made
# without device= meets one on the device. Run by the sanitizer tests under
# `devcheck run`.
import sys

import torch

sys.path.insert(0, sys.argv[2])
import devcheck_fake  # noqa: E402  (python/ of the source tree)

dev = devcheck_fake.load(sys.argv[1])

data = torch.rand(100, 3)
on_device = [data[i].to(dev) for i in range(100)]  # MARK:py_fake_copy
x = torch.ones(3, device=dev)
y = torch.tensor([1.0, 2.0, 3.0])  # MARK:py_fake_stray
try:
    z = x + y  # MARK:py_fake_op
except RuntimeError as e:
    print("planted: LibTorch raised:", str(e).splitlines()[0])
