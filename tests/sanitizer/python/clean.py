# The same kind of work with no device bug: the sanitizer must find nothing.
import torch

w = torch.ones(4, 3, device="meta")
x = torch.rand(16, 4).to("meta")
y = (x @ w) * 2.0 + 1.0
print("clean", y.device)
