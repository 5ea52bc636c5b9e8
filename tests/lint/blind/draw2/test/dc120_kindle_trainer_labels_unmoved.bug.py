# devcheck bug corpus: DC120
# From: https://github.com/JeiKeiLim/kindle/pull/4
# The model builder's TorchTrainer moved each batch's data to its device for
# the model but left the labels as the DataLoader gave them, on the CPU: on a
# GPU the loss (and the accuracy count) mixed the model's CUDA output with CPU
# labels, in train and in test. The fix moves data and labels together at the
# top of both loops.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Union

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from tqdm import tqdm


class TorchTrainer:
    def __init__(self, model: nn.Module, criterion: nn.Module, optimizer: optim.Optimizer,
                 device: Union[str, torch.device] = "cpu", verbose: int = 1) -> None:
        if isinstance(device, str):
            device = torch.device(device)
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.verbose = verbose
        self.device = device

    def train(self, train_dataloader: DataLoader, n_epoch: int, test_dataloader=None):
        average_loss, accuracy = -1.0, -1.0
        for epoch in range(n_epoch):
            running_loss, correct, total = 0.0, 0, 0
            pbar = tqdm(enumerate(train_dataloader), total=len(train_dataloader))
            for batch, (data, labels) in pbar:
                self.optimizer.zero_grad()
                model_out = self.model(data.to(self.device))
                loss = self.criterion(model_out, labels)  # <- bug
                loss.backward()
                self.optimizer.step()
                _, predicted = torch.max(model_out, 1)
                total += labels.size(0)
                correct += (predicted == labels).sum().item()
                running_loss += loss.item()
                pbar.set_description(f"Train: [{epoch + 1:03d}] Loss: {running_loss / (batch + 1):.7f}")
            if test_dataloader is not None:
                self.test(test_dataloader)
            average_loss = running_loss / len(train_dataloader)
            accuracy = correct / total
        return average_loss, accuracy

    @torch.no_grad()
    def test(self, test_dataloader: DataLoader):
        running_loss, correct, total = 0.0, 0, 0
        for batch, (data, labels) in enumerate(test_dataloader):
            model_out = self.model(data.to(self.device))
            running_loss += self.criterion(model_out, labels).item()  # <- bug
            _, predicted = torch.max(model_out, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
        return running_loss / len(test_dataloader), correct / total


def main(train_set, test_set):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.Flatten(), nn.Linear(6 * 28 * 28, 10)).to(device)
    trainer = TorchTrainer(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.001, momentum=0.9), device=device)
    trainer.train(DataLoader(train_set, batch_size=64), n_epoch=2, test_dataloader=DataLoader(test_set, batch_size=64))
