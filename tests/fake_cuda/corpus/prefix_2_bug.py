# kind: state-dict-prefix
# source: https://github.com/zaiweizhang/H3DNet/issues/21
# source: https://github.com/pytorch/pytorch/issues/3805
# fix: load the single-device checkpoint into model.module (or before wrapping), names must match exactly
# expect: Missing key(s) in state_dict: "module.
# sanitizer: none
# prepare: _prepare_train_single_device.py
"""Batch inference on every GPU: the script wraps the network in
nn.DataParallel when more than one GPU is there, then loads a checkpoint that
was trained on a single device."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
if torch.cuda.device_count() > 1:
    net = nn.DataParallel(net)  # BUG:stray
net.to(device)
net.load_state_dict(torch.load("checkpoint.pth", map_location=device))  # BUG:op
net.eval()

images = torch.linspace(-1, 1, 4 * 36).view(4, 1, 6, 6)
with torch.no_grad():
    print(net(images.to(device)).argmax(1).tolist())
