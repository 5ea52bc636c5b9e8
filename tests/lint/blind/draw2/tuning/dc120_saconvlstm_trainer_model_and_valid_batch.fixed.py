# devcheck bug corpus: DC120
# From: https://github.com/tsugumi-sys/SA-ConvLSTM-Pytorch/pull/26
# Fixed: the Trainer moves the model it is handed to DEVICE
# (`self.model = model.to(DEVICE)`), and the validation step moves its batch
# to DEVICE before the forward pass.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.utils.data import DataLoader

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class ConvLSTMForecaster(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.enc = nn.Conv2d(channels, hidden, 3, padding=1)
        self.dec = nn.Conv2d(hidden, channels, 3, padding=1)

    def forward(self, x):
        b, c, t, h, w = x.shape
        frames = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        out = torch.sigmoid(self.dec(torch.relu(self.enc(frames))))
        return out.reshape(b, t, c, h, w).permute(0, 2, 1, 3, 4)


class Trainer:
    def __init__(self, model, train_epochs, train_dataloader, valid_dataloader, loss_criterion, optimizer):
        self.model = model.to(DEVICE)  # <- fixed
        self.train_epochs = train_epochs
        self.train_dataloader = train_dataloader
        self.valid_dataloader = valid_dataloader
        self.loss_criterion = loss_criterion
        self.optimizer = optimizer

    def train(self):
        results = {"train_loss": [], "validation_loss": []}
        for epoch in range(1, self.train_epochs + 1):
            train_loss = 0.0
            self.model.train()
            for input, target in self.train_dataloader:
                input, target = input.to(DEVICE), target.to(DEVICE)
                output = self.model(input)  # <- fixed
                loss = self.loss_criterion(output.flatten(), target.flatten())
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                train_loss += loss.item()
            results["train_loss"].append(train_loss / len(self.train_dataloader))
            results["validation_loss"].append(self.validation())
        return results

    def validation(self):
        self.model.eval()
        with torch.no_grad():
            input, target = next(iter(self.valid_dataloader))
            input, target = input.to(DEVICE), target.to(DEVICE)  # <- fixed
            output = self.model(input)  # <- fixed
            loss = self.loss_criterion(output.flatten(), target.flatten())
        return loss.item()


def main(train_set, valid_set):
    model = ConvLSTMForecaster(channels=1, hidden=32)
    trainer = Trainer(
        model=model,
        train_epochs=100,
        train_dataloader=DataLoader(train_set, batch_size=4, shuffle=True),
        valid_dataloader=DataLoader(valid_set, batch_size=4),
        loss_criterion=nn.MSELoss(),
        optimizer=torch.optim.Adam(model.parameters(), lr=1e-4),
    )
    return trainer.train()
