# devcheck bug corpus: DC101
# From: https://github.com/Misaliet/Seamless-Satellite-image-Synthesis/issues/1
# From: https://github.com/Misaliet/Seamless-Satellite-image-Synthesis/commit/698e09c97c7e51e895e4b3f029acc1dbd4a35c86
# The web UI's views module draws one latent vector at import, torch.randn without a
# device, while the SPADE-style generator is put on the GPU (gpu_ids "0"): the first tile
# runs the generator's fc layer on the CPU z and fails ("mat1 is on CPU").
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class TileGenerator(nn.Module):
    def __init__(self, z_dim, label_nc):
        super().__init__()
        self.fc = nn.Linear(z_dim, 16 * 8 * 8)
        self.head = nn.Conv2d(16 + label_nc, 3, 3, padding=1)

    def forward(self, semantics, z):
        x = self.fc(z).view(-1, 16, 8, 8)
        x = F.interpolate(x, size=semantics.shape[2:])
        return torch.tanh(self.head(torch.cat([x, semantics], 1)))


class Pix2PixModel(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.opt = opt
        self.netG = TileGenerator(opt.z_dim, opt.label_nc)
        if len(opt.gpu_ids) > 0:
            self.netG.cuda()

    def forward(self, label, z):
        if len(self.opt.gpu_ids) > 0:
            label = label.cuda()
        semantics = F.one_hot(label.long(), self.opt.label_nc).permute(0, 3, 1, 2).float()
        with torch.no_grad():
            return self.netG(semantics, z)


def init_model(name):
    opt = argparse.Namespace(name=name, z_dim=256, label_nc=13, gpu_ids=[0])
    model = Pix2PixModel(opt)
    model.eval()
    return model, opt


model, opt = init_model("z1")
z_sample = torch.randn(1, opt.z_dim, dtype=torch.float32)  # <- bug


def generate_tiles(model, label_tiles, z):
    return [model(tile, z) for tile in label_tiles]


def index(request):
    tiles = [torch.randint(0, 13, (1, 64, 64)) for _ in range(4)]
    images = generate_tiles(model, tiles, z_sample)
    return {"count": len(images)}


if __name__ == "__main__":
    print(index(None))
