# devcheck bug corpus: DC121
# From: https://github.com/microsoft/nni/issues/2918
# The model is moved to the GPU first and only then handed to NNI's
# QAT_Quantizer, which wraps the layers to compress and registers new buffers
# on them (ema_decay, tracked_min_biased, ...) made on the CPU: the first
# training step's EMA update mixes them with the CUDA activations.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from nni.compression.torch import QAT_Quantizer
from torchvision import datasets, transforms


class Mnist(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1)
        self.conv2 = nn.Conv2d(20, 50, 5, 1)
        self.fc1 = nn.Linear(4 * 4 * 50, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = F.relu(self.fc1(x.view(-1, 4 * 4 * 50)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, device, loader, optimizer):
    model.train()
    for data, target in loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = torch.utils.data.DataLoader(
        datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor()),
        batch_size=64, shuffle=True)
    model = Mnist().to(device)
    configure_list = [{
        "quant_types": ["weight", "output"],
        "quant_bits": {"weight": 8, "output": 8},
        "op_types": ["Conv2d", "Linear"],
    }]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    quantizer = QAT_Quantizer(model, configure_list, optimizer)  # <- bug
    quantizer.compress()
    for epoch in range(10):
        train(model, device, loader, optimizer)


if __name__ == "__main__":
    main()
