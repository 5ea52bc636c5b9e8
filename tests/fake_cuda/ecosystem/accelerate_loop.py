"""Hugging Face accelerate's training loop as its README shows it:
Accelerator() picks the device itself (CUDA when torch says there is one;
`cpu` makes it Accelerator(cpu=True)), prepare() moves the model and wraps
the optimizer and the DataLoader, accelerator.backward() runs backward.

Prints one JSON line: the device accelerate chose, the losses and a SHA-256 of
the trained parameters, which the CPU run must reproduce.
"""
import hashlib
import json
import sys

import torch
from accelerate import Accelerator


def main(device):
    accelerator = Accelerator(cpu=(device == "cpu"))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 3))
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(48, 16, generator=g)
    y = torch.randint(0, 3, (48,), generator=g)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    losses = []
    model.train()
    for epoch in range(2):
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            accelerator.backward(loss)
            optimizer.step()
            losses.append(loss.item())
    h = hashlib.sha256()
    for p in accelerator.unwrap_model(model).parameters():
        h.update(p.detach().cpu().numpy().tobytes())
    print(json.dumps({"device": str(accelerator.device), "losses": losses, "state": h.hexdigest()}))


if __name__ == "__main__":
    main(sys.argv[1])
