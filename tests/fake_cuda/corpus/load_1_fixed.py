# kind: load-without-map-location
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/fastai/fastai/issues/3656
# source: https://github.com/Juyong/CaricatureFace/issues/2
# fix: torch.load(path, map_location=device) (map_location='cuda:0' in the replies)
# devices: 1
# prepare: _prepare_train_on_cuda1.py
"""Inference on a one-GPU machine with a model trained on a server's second
GPU: torch.load restores every tensor to the device it was saved from."""
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
state = torch.load("model.pth", map_location=device)
model.load_state_dict(state)
model.to(device).eval()
with torch.no_grad():
    print(model(torch.ones(3, 4, device=device)).argmax(1).tolist())
