# devcheck bug corpus: DC112
# From: https://github.com/HsinYingLee/DRIT/issues/6
# Fixed: the random codes are drawn on the host and moved to the GPU the
# model was set on, cuda(self.gpu).
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class AttrEncoder(nn.Module):
    def __init__(self, in_dim=3, nz=8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(in_dim, 32, 4, 2, 1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, nz))

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, out_dim=3, nz=8):
        super().__init__()
        self.fc = nn.Linear(nz, out_dim * 16 * 16)
        self.out_dim = out_dim

    def forward(self, z):
        return torch.tanh(self.fc(z)).view(-1, self.out_dim, 16, 16)


class Translator(nn.Module):
    def __init__(self, nz=8):
        super().__init__()
        self.nz = nz
        self.enc_a = AttrEncoder(nz=nz)
        self.gen = Generator(nz=nz)
        self.opt = torch.optim.Adam(list(self.enc_a.parameters()) + list(self.gen.parameters()), lr=1e-4)

    def setgpu(self, gpu):
        self.gpu = gpu
        self.enc_a.cuda(self.gpu)
        self.gen.cuda(self.gpu)

    def get_z_random(self, batch, nz):
        z = torch.randn(batch, nz).cuda(self.gpu)  # <- fixed
        return z

    def update(self, image):
        self.z_random = self.get_z_random(image.size(0), self.nz)
        fake = self.gen(self.z_random)
        z_back = self.enc_a(fake)
        loss_latent = torch.mean(torch.abs(z_back - self.z_random)) * 10
        self.opt.zero_grad()
        loss_latent.backward()
        self.opt.step()
        return loss_latent.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=0)
    parser.add_argument("--iters", type=int, default=100)
    opts = parser.parse_args()
    model = Translator()
    model.setgpu(opts.gpu)
    for it in range(opts.iters):
        images = torch.randn(2, 3, 16, 16).cuda(opts.gpu)
        print(it, model.update(images))


if __name__ == "__main__":
    main()
