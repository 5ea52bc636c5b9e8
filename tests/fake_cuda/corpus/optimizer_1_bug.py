# kind: optimizer-state
# source: https://github.com/microsoft/Cream/issues/2
# source: https://github.com/kohya-ss/sd-scripts/issues/1944
# fix: move the model to the device before building the optimizer and loading its state (load_state_dict casts the state to each parameter's device)
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# sanitizer: mismatch
# prepare: _prepare_train_checkpoint.py
"""Resuming training from a checkpoint loaded with map_location="cpu": the
model and the SGD optimizer state are restored, then the model goes to the GPU."""
import torch
from torch import nn

torch.manual_seed(1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
checkpoint = torch.load("checkpoint.pth.tar", map_location="cpu")  # BUG:stray
start_epoch = checkpoint["epoch"]
model.load_state_dict(checkpoint["state_dict"])
optimizer.load_state_dict(checkpoint["optimizer"])
model.to(device)

x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
for epoch in range(start_epoch, start_epoch + 2):
    loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()  # BUG:op
    print("epoch", epoch, "loss", round(loss.item(), 4))
