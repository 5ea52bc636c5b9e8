# devcheck bug corpus: DC101
# From: https://github.com/dougbrion/pytorch-classification-uncertainty/issues/18
# Evidential deep learning on MNIST: the training loop moves the labels to
# the GPU and then one-hot encodes them with a helper that indexes a
# torch.eye made on the CPU with those GPU labels, which torch refuses.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_device():
    return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def one_hot_embedding(labels, num_classes=10):
    y = torch.eye(num_classes)  # <- bug
    return y[labels]


def edl_mse_loss(output, target, epoch_num, num_classes, annealing_step, device):
    alpha = F.relu(output) + 1
    S = torch.sum(alpha, dim=1, keepdim=True)
    err = torch.sum((target - alpha / S) ** 2, dim=1, keepdim=True)
    var = torch.sum(alpha * (S - alpha) / (S * S * (S + 1)), dim=1, keepdim=True)
    coef = min(1.0, epoch_num / annealing_step)
    return torch.mean(err + var) * coef + torch.mean(err + var) * (1 - coef)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 20, 5)
        self.fc = nn.Linear(20 * 12 * 12, 10)

    def forward(self, x):
        return self.fc(F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1))


def train_model(model, dataloaders, num_classes, optimizer, num_epochs=25, device=None):
    if not device:
        device = get_device()
    model = model.to(device)
    for epoch in range(num_epochs):
        model.train()
        for inputs, labels in dataloaders["train"]:
            inputs = inputs.to(device)
            labels = labels.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            y = one_hot_embedding(labels, num_classes)
            y = y.to(device)
            loss = edl_mse_loss(outputs, y.float(), epoch, num_classes, 10, device)
            loss.backward()
            optimizer.step()
    return model
