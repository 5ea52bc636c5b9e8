# devcheck bug corpus: DC113
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/1429
# A LightningModule for a 26-class letter task trained with the Trainer on a
# GPU: the validation step scored each batch with scikit-learn's
# accuracy_score on the labels and the predicted classes, both CUDA tensors
# there (the Trainer moves the batch and the model to the GPU), and
# scikit-learn's conversion to NumPy failed ("can't convert CUDA tensor to
# numpy"). The maintainer: accuracy_score works on NumPy arrays only (or
# compute the accuracy in torch); the reporter moved the tensors with
# .cpu().
# Written for devcheck's tests after the thread; not the project's code.
import torch
from argparse import ArgumentParser
from torch.nn import functional as F
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import EMNIST
from sklearn.metrics import accuracy_score

import pytorch_lightning as pl
from pytorch_lightning import Trainer


class MNISTModel(pl.LightningModule):
    def __init__(self, parameters):
        super(MNISTModel, self).__init__()
        self.params = parameters
        self.conv1 = torch.nn.Conv2d(in_channels=1, out_channels=10, kernel_size=3)
        self.pool1 = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(in_channels=10, out_channels=20, kernel_size=3)
        self.pool2 = torch.nn.MaxPool2d(2)
        self.conv3 = torch.nn.Conv2d(in_channels=20, out_channels=30, kernel_size=3)
        self.dropout1 = torch.nn.Dropout2d(p=0.25)
        self.fc3 = torch.nn.Linear(30 * 3 * 3, 270)
        self.fc4 = torch.nn.Linear(270, 26)
        self.softmax = torch.nn.LogSoftmax(dim=1)

    def forward(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = self.dropout1(F.relu(self.conv3(x)))
        x = F.relu(self.fc3(x.view(x.size(0), -1)))
        return self.softmax(self.fc4(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.nll_loss(self(x), y)
        return {"loss": loss}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        val_acc = accuracy_score(y, torch.argmax(y_hat, dim=1))  # <- bug
        return {"val_loss": F.nll_loss(y_hat, y), "val_acc": torch.tensor(val_acc)}

    def validation_epoch_end(self, outputs):
        avg_loss = torch.stack([x["val_loss"] for x in outputs]).mean()
        avg_acc = torch.stack([x["val_acc"] for x in outputs]).mean()
        return {"val_loss": avg_loss, "log": {"val_loss": avg_loss, "val_acc": avg_acc}}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.params.lr)

    def train_dataloader(self):
        return DataLoader(EMNIST(".", split="letters", train=True, download=True, transform=transforms.ToTensor(), target_transform=lambda t: t - 1), batch_size=64)

    def val_dataloader(self):
        return DataLoader(EMNIST(".", split="letters", train=False, download=True, transform=transforms.ToTensor(), target_transform=lambda t: t - 1), batch_size=64)


if __name__ == "__main__":
    parser = ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    hparams = parser.parse_args()
    trainer = Trainer(gpus=1, max_epochs=5)
    trainer.fit(MNISTModel(hparams))
