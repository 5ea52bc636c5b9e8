# kind: dataparallel-order
# source: https://github.com/replicate/cog/issues/971
# source: https://github.com/wangguanan/HOReID/issues/28
# fix: give DataParallel the chosen GPU first in device_ids (device_ids=[1, 0]), so device_ids[0] is where the model is
# expect: module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cuda:1
# sanitizer: none
"""Serving on the second GPU: torch.cuda.set_device('cuda:1') makes "cuda"
mean cuda:1, the model is moved there, then wrapped in nn.DataParallel with
its default device_ids (all GPUs, starting at 0)."""
import torch
from torch import nn

torch.manual_seed(0)
if torch.cuda.is_available():
    device = "cuda"
    if torch.cuda.device_count() > 1:
        torch.cuda.set_device("cuda:1")
else:
    device = "cpu"

model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 2))
model.to(device)  # BUG:stray
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model.eval()

requests = torch.randn(8, 6)
with torch.no_grad():
    outputs = model(requests.to(device))  # BUG:op
print(outputs.argmax(1).tolist())
