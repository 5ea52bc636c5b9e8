# devcheck bug corpus: DC105
# From: https://github.com/Lornatang/GAN-PyTorch/issues/1
# From: https://github.com/Lornatang/GAN-PyTorch/pull/2
# The pretrained generator is fetched with torch.hub's load_state_dict_from_url
# (torch.load underneath) without map_location; the published weights were
# saved on a GPU, so download_weights.py fails on a CPU-only machine.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from torch.hub import load_state_dict_from_url

model_urls = {
    "mnist": "https://example.org/releases/GAN_mnist-1a2b3c.pth",
    "fmnist": "https://example.org/releases/GAN_fmnist-4d5e6f.pth",
}


class Generator(nn.Module):
    def __init__(self, image_size=28, channels=1, latent_dim=100):
        super().__init__()
        self.shape = (channels, image_size, image_size)
        self.main = nn.Sequential(
            nn.Linear(latent_dim, 128),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(128, 512),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(512, channels * image_size * image_size),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z).view(z.size(0), *self.shape)


def _gan(arch, pretrained, progress):
    model = Generator()
    if pretrained:
        state_dict = load_state_dict_from_url(model_urls[arch], progress=progress)  # <- bug
        model.load_state_dict(state_dict)
    return model


def mnist(pretrained=False, progress=True):
    return _gan("mnist", pretrained, progress)


def fmnist(pretrained=False, progress=True):
    return _gan("fmnist", pretrained, progress)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Download pretrained generators")
    parser.add_argument("-a", "--arch", default="mnist", choices=sorted(model_urls))
    args = parser.parse_args()
    net = mnist(pretrained=True) if args.arch == "mnist" else fmnist(pretrained=True)
    torch.save(net.state_dict(), "GAN_{}.pth".format(args.arch))
