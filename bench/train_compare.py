"""The seed classifier's training loop in Python PyTorch: the anchor that
`devcheck train` is compared against (bench/train_compare.sh).

Same model (Conv2d(1, 32, 3) -> ReLU -> Flatten -> Linear(32*26*26, 10)), Adam
(lr 2.5e-3, cosine decay over all epochs as devcheck's default
--lr-schedule), cross-entropy, batch 32, shuffled, seed 0, the same Fashion-MNIST
files, and the loop a Python user writes: torch.utils.data.DataLoader over the
decoded tensors. Prints one JSON object like `devcheck train --json`.
"""
import argparse
import gzip
import json
import math
import time

import numpy as np
import torch
from torch import nn

LR = 2.5e-3  # devcheck train's default --lr


def read_idx(path, offset):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset).copy()


def load(data, split):
    x = read_idx(f"{data}/{split}-images-idx3-ubyte.gz", 16)
    y = read_idx(f"{data}/{split}-labels-idx1-ubyte.gz", 8)
    x = torch.from_numpy(x).float().div_(255).view(-1, 1, 28, 28)
    return x, torch.from_numpy(y).long()


def train_step(model, optimizer, loss_fn, x, y, done):
    """One Adam step at the cosine learning rate of `devcheck train`'s default
    schedule, `done` (0..1) of the way through the run. Returns the loss."""
    for group in optimizer.param_groups:
        group["lr"] = LR * 0.5 * (1 + math.cos(math.pi * done))
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    started = time.perf_counter()
    torch.manual_seed(0)
    train_x, train_y = load(a.data, "train")
    test_x, test_y = load(a.data, "t10k")
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 26 * 26, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_x, train_y), batch_size=a.batch_size, shuffle=True)
    epochs = []
    steps_per_epoch = len(loader) if a.max_steps <= 0 else min(a.max_steps, len(loader))
    for epoch in range(1, a.epochs + 1):
        model.train()
        t = time.perf_counter()
        steps = samples = 0
        total = torch.zeros(())
        for x, y in loader:
            done = (epoch - 1 + steps / steps_per_epoch) / a.epochs
            total += train_step(model, optimizer, loss_fn, x, y, done)
            steps += 1
            samples += y.shape[0]
            if steps == a.max_steps:
                break
        seconds = time.perf_counter() - t
        epochs.append({"epoch": epoch, "steps": steps, "samples": samples,
                       "mean_loss": total.item() / max(steps, 1), "seconds": seconds,
                       "samples_per_second": samples / seconds})
    model.eval()
    with torch.no_grad():
        correct = sum((model(test_x[i:i + 1000]).argmax(1) == test_y[i:i + 1000]).sum().item()
                      for i in range(0, len(test_y), 1000))
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(),
                      "epochs": epochs, "test_accuracy": correct / len(test_y),
                      "total_seconds": time.perf_counter() - started}, indent=2))


if __name__ == "__main__":
    main()
