# A PyTorch program with a planted device bug: a tensor made without device=
# meets a tensor on meta. Run by the sanitizer tests under `devcheck run`.
import torch

x = torch.ones(3, device="meta")
y = torch.tensor([1.0, 2.0, 3.0])  # MARK:py_stray
z = x + y  # MARK:py_op
print("unreachable: LibTorch raises above", z.device)
