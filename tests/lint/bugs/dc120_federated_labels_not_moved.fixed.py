# devcheck bug corpus: DC120
# From: https://github.com/flwrlabs/flower/pull/1140
# The quickstart's test() moves the images to the device but compares the
# predictions with labels still on the CPU: "Expected all tensors to be on the
# same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision.datasets import CIFAR10

DEVICE = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def load_data():
    testset = CIFAR10("./data", train=False, download=True)
    return DataLoader(testset, batch_size=32)


def test(net, testloader):
    criterion = nn.CrossEntropyLoss()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for images, labels in testloader:
            images, labels = images.to(DEVICE), labels.to(DEVICE)
            outputs = net(images)
            loss += criterion(outputs, labels).item()
            correct += (torch.max(outputs.data, 1)[1] == labels).sum().item()  # <- fixed
    return loss, correct / len(testloader.dataset)
