# devcheck bug corpus: DC102
# From: https://github.com/pytorch/pytorch/issues/43313
# Fixed: the moved batches are assigned.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ConvEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))

    def forward(self, x):
        return self.net(x)


class ConvDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.ConvTranspose2d(16, 3, 2, stride=2), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


def train_step(encoder, decoder, train_loader, loss_fn, optimizer, device):
    encoder.train()
    decoder.train()
    for train_img, target_img in train_loader:
        train_img = train_img.to(device)  # <- fixed
        target_img = target_img.to(device)  # <- fixed
        optimizer.zero_grad()
        loss = loss_fn(decoder(encoder(train_img)), target_img)
        loss.backward()
        optimizer.step()
    return loss.item()


def main(train_loader):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    encoder = ConvEncoder()
    decoder = ConvDecoder()
    encoder.to(device)
    decoder.to(device)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    print(train_step(encoder, decoder, train_loader, nn.MSELoss(), optimizer, device))
