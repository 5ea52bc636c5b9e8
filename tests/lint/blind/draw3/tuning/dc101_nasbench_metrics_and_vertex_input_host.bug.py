# devcheck bug corpus: DC101
# From: https://github.com/romulus0914/NASBench-PyTorch/issues/3
# Training a NAS-Bench-101 network with main.py on a GPU crashed with
# "expected device cpu but got device cuda:0": the trainer moved the network
# and the batches to the device, but made its running metrics with
# torch.tensor(0.0) on the CPU and added the CUDA loss and correct counts
# into them in place; and a cell's forward summed its inputs into
# torch.zeros(fan_in[0].shape), a CPU tensor, before the vertex operation.
# The reporter listed the three lines; the maintainers fixed them (commits
# 08860e3 and a003b99): the metrics take the values moved to the CPU, and
# the cell makes its buffer on its own parameters' device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, matrix, channels):
        super(Cell, self).__init__()
        self.matrix = matrix
        self.num_vertices = np.shape(self.matrix)[0]
        self.vertex_op = nn.ModuleList([nn.Identity()] + [
            nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU())
            for _ in range(1, self.num_vertices - 1)])
        self.input_op = nn.ModuleList([nn.Identity()] + [nn.Conv2d(channels, channels, 1) for _ in range(1, self.num_vertices)])

    def forward(self, x):
        tensors = [x]
        out_concat = []
        for t, (inmod, outmod) in enumerate(zip(self.input_op, self.vertex_op)):
            if 0 < t < (self.num_vertices - 1):
                fan_in = [tensors[src] for src in range(1, t) if self.matrix[src, t]]
                if self.matrix[0, t]:
                    fan_in.append(inmod(x))
                vertex_input = torch.zeros(fan_in[0].shape)  # <- bug
                for val in fan_in:
                    vertex_input += val
                tensors.append(outmod(vertex_input))
                if self.matrix[t, self.num_vertices - 1]:
                    out_concat.append(tensors[t])
        return sum(out_concat) if out_concat else self.input_op[-1](x)


def train(net, train_loader, num_epochs=10, device=None, print_frequency=200):
    net = net.to(device)
    loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.025, momentum=0.9, weight_decay=1e-4)
    metric_dict = {"train_loss": [], "train_accuracy": []}
    for epoch in range(num_epochs):
        net.train()
        train_loss = torch.tensor(0.0)  # <- bug
        correct = torch.tensor(0.0)  # <- bug
        total = 0
        batch_idx = 0
        for batch_idx, (inputs, targets) in enumerate(train_loader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            optimizer.zero_grad()
            curr_loss = loss(outputs, targets)
            curr_loss.backward()
            optimizer.step()
            train_loss += curr_loss.detach()
            _, predict = torch.max(outputs.data, 1)
            total += targets.size(0)
            correct += predict.eq(targets.data).sum().detach()
            if (batch_idx % print_frequency) == 0:
                print(f"Epoch={epoch} Batch={batch_idx + 1} | Loss={train_loss / (batch_idx + 1):.3f}, Acc={correct / total:.3f}")
        metric_dict["train_loss"].append((train_loss / (batch_idx + 1)).item())
        metric_dict["train_accuracy"].append((correct / total).item())
    return metric_dict
