# devcheck bug corpus: DC120
# From: https://github.com/davidtvs/PyTorch-ENet/issues/32
# A segmentation trainer class moved the images and labels of each batch to
# the device it was given but the model passed to it had never been moved:
# "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, data_loader, optim, criterion, device):
        self.model = model
        self.data_loader = data_loader
        self.optim = optim
        self.criterion = criterion
        self.device = device

    def run_epoch(self):
        self.model.train()
        for images, labels in self.data_loader:
            images = images.to(self.device)
            labels = labels.to(self.device)
            outputs = self.model(images)  # <- fixed
            loss = self.criterion(outputs, labels)
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()


def main(loader):
    device = torch.device("cuda")
    model = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1))
    model = model.to(device)  # <- fixed
    optimizer = torch.optim.Adam(model.parameters())
    trainer = Trainer(model, loader, optimizer, nn.CrossEntropyLoss(), device)
    trainer.run_epoch()
