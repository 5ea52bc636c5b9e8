# devcheck bug corpus: DC112
# From: https://github.com/TadaoYamaoka/DeepLearningShogi/issues/40
# Fixed: the device is torch.device(f"cuda:{args.gpu}") and set_device is
# dropped, so the prefetch thread moves the batches to the model's GPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", "-g", type=int, default=0)
parser.add_argument("--batchsize", type=int, default=1024)
parser.add_argument("--lr", type=float, default=0.01)
args = parser.parse_args()

if args.gpu >= 0:
    device = torch.device(f"cuda:{args.gpu}")  # <- fixed
else:
    device = torch.device("cpu")

model = nn.Sequential(nn.Conv2d(62, 192, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(192 * 81, 2187))
model.to(device)
optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
cross_entropy_loss = nn.CrossEntropyLoss()


class DataLoader:
    def __init__(self, data, batch_size):
        self.data = data
        self.batch_size = batch_size
        self.torch_features = torch.empty((batch_size, 62, 9, 9), dtype=torch.float32, pin_memory=True)
        self.torch_move = torch.empty((batch_size,), dtype=torch.int64, pin_memory=True)
        self.features = self.torch_features.numpy()
        self.move = self.torch_move.numpy()
        self.i = 0
        self.executor = ThreadPoolExecutor(max_workers=1)

    def mini_batch(self, positions):
        self.features[:] = positions["features"]
        self.move[:] = positions["move"]
        return self.torch_features.to(device), self.torch_move.to(device)

    def pre_fetch(self):
        batch = self.data[self.i:self.i + self.batch_size]
        if len(batch) == 0:
            return
        self.i += self.batch_size
        self.f = self.executor.submit(self.mini_batch, batch)

    def __iter__(self):
        self.i = 0
        np.random.shuffle(self.data)
        self.pre_fetch()
        return self

    def __next__(self):
        if self.i >= len(self.data) - self.batch_size + 1:
            raise StopIteration()
        result = self.f.result()
        self.pre_fetch()
        return result


train_data = np.zeros(100000, dtype=[("features", np.float32, (62, 9, 9)), ("move", np.int64)])
for x, t in DataLoader(train_data, args.batchsize):
    model.train()
    y = model(x)
    loss = cross_entropy_loss(y, t)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
