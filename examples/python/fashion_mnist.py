"""The Fashion-MNIST classifier of `devcheck train`, written as a PyTorch user
writes it: one device chosen at the top, the model and every batch moved
there. Prints the loss of every step (exactly, as float.hex()) and the test
accuracy.

    python3 examples/python/fashion_mnist.py --max-steps 20
    devcheck run --fake-cuda --mode fail -- python3 examples/python/fashion_mnist.py --max-steps 20

On a machine without a GPU the first runs on the CPU; the second runs the
CUDA path on devcheck's fake CUDA, with the same losses, bit for bit.
"""
import argparse
import gzip

import numpy as np
import torch
from torch import nn

DEVICE = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def read_idx(path, offset):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset).copy()


def load(folder, split, limit):
    x = read_idx(f"{folder}/{split}-images-idx3-ubyte.gz", 16)
    y = read_idx(f"{folder}/{split}-labels-idx1-ubyte.gz", 8)
    x = torch.from_numpy(x).float().div_(255).view(-1, 1, 28, 28)[:limit]
    return torch.utils.data.TensorDataset(x, torch.from_numpy(y).long()[:limit])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 32, 3)
        self.fc = nn.Linear(32 * 26 * 26, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--max-steps", type=int, default=100)
    p.add_argument("--test-samples", type=int, default=1000)
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    train = torch.utils.data.DataLoader(load(a.data, "train", a.max_steps * 32), batch_size=32, shuffle=True,
                                        pin_memory=DEVICE.type == "cuda")
    test = torch.utils.data.DataLoader(load(a.data, "t10k", a.test_samples), batch_size=256)
    model = Classifier().to(DEVICE)
    optimizer = torch.optim.Adam(model.parameters(), lr=2.5e-3)
    print("device", DEVICE)
    model.train()
    for step, (x, y) in enumerate(train):
        x, y = x.to(DEVICE, non_blocking=True), y.to(DEVICE, non_blocking=True)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        print("step", step, "loss", loss.item().hex())
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test:
            correct += (model(x.to(DEVICE)).argmax(1) == y.to(DEVICE)).sum().item()
    print("accuracy", correct / len(test.dataset))


if __name__ == "__main__":
    main()
