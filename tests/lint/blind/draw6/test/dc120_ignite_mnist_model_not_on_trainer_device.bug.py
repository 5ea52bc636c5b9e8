# devcheck bug corpus: DC120
# From: https://github.com/pytorch/ignite/issues/192
# ignite's MNIST example, modified: the device is chosen and handed to
# create_supervised_trainer/evaluator, which move each batch there, but the
# line that moved the model was left out. On a GPU machine the batches go
# to cuda while the network stays on the CPU, and model(x) fails.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.metrics import Accuracy, Loss
from torch.optim import SGD
from torch.utils.data import DataLoader
from torchvision.datasets import MNIST
from torchvision.transforms import Compose, Normalize, ToTensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = F.relu(self.fc1(x.view(-1, 320)))
        return F.log_softmax(self.fc2(x), dim=-1)


def loaders(train_bs, val_bs):
    tf = Compose([ToTensor(), Normalize((0.1307,), (0.3081,))])
    train = DataLoader(MNIST("data", train=True, download=True, transform=tf), batch_size=train_bs, shuffle=True)
    val = DataLoader(MNIST("data", train=False, download=False, transform=tf), batch_size=val_bs)
    return train, val


def run(train_bs=64, val_bs=1000, epochs=2, lr=0.01, momentum=0.5):
    train_loader, val_loader = loaders(train_bs, val_bs)
    model = Net()  # <- bug
    device = "cpu"
    if torch.cuda.is_available():
        device = "cuda"

    optimizer = SGD(model.parameters(), lr=lr, momentum=momentum)
    trainer = create_supervised_trainer(model, optimizer, F.nll_loss, device=device)
    evaluator = create_supervised_evaluator(
        model, metrics={"accuracy": Accuracy(), "nll": Loss(F.nll_loss)}, device=device
    )

    @trainer.on(Events.EPOCH_COMPLETED)
    def log_validation(engine):
        evaluator.run(val_loader)
        m = evaluator.state.metrics
        print(f"epoch {engine.state.epoch}: acc {m['accuracy']:.3f} nll {m['nll']:.3f}")

    trainer.run(train_loader, max_epochs=epochs)


if __name__ == "__main__":
    run()
