# devcheck bug corpus: DC101
# From: https://github.com/romulus0914/NASBench-PyTorch/issues/3
# Fixed (commits 08860e3, a003b99): the running metrics stay on the CPU and
# take the loss and the correct count moved there; the cell keeps an empty
# parameter to know its device and makes vertex_input on it.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, matrix, channels):
        super(Cell, self).__init__()
        self.dev_param = nn.Parameter(torch.empty(0))  # <- fixed
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
                vertex_input = torch.zeros(fan_in[0].shape).to(self.dev_param.device)  # <- fixed
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
        train_loss = torch.tensor(0.0)  # <- fixed
        correct = torch.tensor(0)  # <- fixed
        total = 0
        batch_idx = 0
        for batch_idx, (inputs, targets) in enumerate(train_loader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            optimizer.zero_grad()
            curr_loss = loss(outputs, targets)
            curr_loss.backward()
            optimizer.step()
            train_loss += curr_loss.detach().cpu()  # <- fixed
            _, predict = torch.max(outputs.data, 1)
            total += targets.size(0)
            correct += predict.eq(targets.data).sum().detach().cpu()  # <- fixed
            if (batch_idx % print_frequency) == 0:
                print(f"Epoch={epoch} Batch={batch_idx + 1} | Loss={train_loss / (batch_idx + 1):.3f}, Acc={correct / total:.3f}")
        metric_dict["train_loss"].append((train_loss / (batch_idx + 1)).item())
        metric_dict["train_accuracy"].append((correct / total).item())
    return metric_dict
