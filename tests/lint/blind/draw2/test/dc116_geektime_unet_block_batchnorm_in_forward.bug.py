# devcheck bug corpus: DC116
# From: https://github.com/syuu1987/geekTime-semantic-segmentation/issues/1
# The tutorial's U-Net building block made its BatchNorm2d layers inside
# forward (nn.BatchNorm2d(num_features=self.features)(x)): new layers on the
# CPU at every call, never moved by unet.to(device), so training on cuda:0
# failed with "Expected all tensors to be on the same device ... cuda:0 and
# cpu". The reporter's fix makes the BatchNorm2d layers in __init__.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, in_channels, features):
        super().__init__()
        self.features = features
        self.conv1 = nn.Conv2d(in_channels, features, kernel_size=3, padding="same")
        self.conv2 = nn.Conv2d(features, features, kernel_size=3, padding="same")

    def forward(self, input):
        x = self.conv1(input)
        x = nn.BatchNorm2d(num_features=self.features)(x)  # <- bug
        x = nn.ReLU(inplace=True)(x)
        x = self.conv2(x)
        x = nn.BatchNorm2d(num_features=self.features)(x)  # <- bug
        x = nn.ReLU(inplace=True)(x)
        return x


class UNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=1, init_features=32):
        super().__init__()
        f = init_features
        self.encoder1 = Block(in_channels, f)
        self.encoder2 = Block(f, f * 2)
        self.bottleneck = Block(f * 2, f * 4)
        self.upconv2 = nn.ConvTranspose2d(f * 4, f * 2, kernel_size=2, stride=2)
        self.decoder2 = Block(f * 4, f * 2)
        self.upconv1 = nn.ConvTranspose2d(f * 2, f, kernel_size=2, stride=2)
        self.decoder1 = Block(f * 2, f)
        self.conv = nn.Conv2d(f, out_channels, kernel_size=1)

    def forward(self, x):
        e1 = self.encoder1(x)
        e2 = self.encoder2(nn.MaxPool2d(2, 2)(e1))
        b = self.bottleneck(nn.MaxPool2d(2, 2)(e2))
        d2 = self.decoder2(torch.cat((self.upconv2(b), e2), dim=1))
        d1 = self.decoder1(torch.cat((self.upconv1(d2), e1), dim=1))
        return torch.sigmoid(self.conv(d1))


def train(args, loader):
    device = torch.device("cpu" if not torch.cuda.is_available() else args.device)
    unet = UNet()
    unet.to(device)
    optimizer = torch.optim.Adam(unet.parameters(), lr=args.lr)
    for x, y_true in loader:
        x, y_true = x.to(device), y_true.to(device)
        y_pred = unet(x)
        loss = 1 - (2 * (y_pred * y_true).sum() + 1) / (y_pred.sum() + y_true.sum() + 1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", type=str, default="cuda:0")
    parser.add_argument("--lr", type=float, default=0.0001)
    train(parser.parse_args(), [])
