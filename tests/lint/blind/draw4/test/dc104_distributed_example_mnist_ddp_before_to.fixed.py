# devcheck bug corpus: DC104
# From: https://github.com/narumiruna/pytorch-distributed-example/pull/11
# From: https://github.com/narumiruna/pytorch-distributed-example/commit/d34d9d97b961f8403af91aab4e2089e915cdd6e7
# The fix (PR #11, commit d34d9d9) moves the network to the device when it is built,
# Net().to(device), before the DistributedDataParallel wrap, and drops the later move
# of the wrapper.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.distributed as distributed
import torch.nn as nn
import torch.nn.functional as F
from torch.utils import data
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


class Trainer(object):
    def __init__(self, net, optimizer, train_loader, device):
        self.net = net
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.device = device

    def fit(self, epochs):
        for epoch in range(1, epochs + 1):
            self.net.train()
            for x, y in self.train_loader:
                x, y = x.to(self.device), y.to(self.device)
                loss = F.cross_entropy(self.net(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1))


def get_dataloader(root, batch_size):
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST(root, train=True, transform=transform, download=True)
    return data.DataLoader(train_set, batch_size=batch_size, sampler=DistributedSampler(train_set))


def run(args):
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    device = torch.device("cuda" if use_cuda else "cpu")

    net = Net().to(device)  # <- fixed
    if use_cuda:
        net = nn.parallel.DistributedDataParallel(net)  # <- fixed
    else:
        net = nn.parallel.DistributedDataParallelCPU(net)

    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    trainer = Trainer(net, optimizer, get_dataloader(args.root, args.batch_size), device)
    trainer.fit(args.epochs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", type=str, default="gloo")
    parser.add_argument("-i", "--init-method", type=str, default="tcp://127.0.0.1:23456")
    parser.add_argument("-r", "--rank", type=int)
    parser.add_argument("-s", "--world-size", type=int)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--no-cuda", action="store_true")
    parser.add_argument("--learning-rate", "-lr", type=float, default=1e-3)
    parser.add_argument("--root", type=str, default="data")
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()
    distributed.init_process_group(backend=args.backend, init_method=args.init_method, rank=args.rank, world_size=args.world_size)
    run(args)


if __name__ == "__main__":
    main()
