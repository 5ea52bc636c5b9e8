# devcheck bug corpus: DC105
# From: https://github.com/rosinality/stylegan2-pytorch/pull/31
# Resuming StyleGAN2 training from a checkpoint (one process per GPU, each
# on its own device after set_device): the checkpoint was read with
# `torch.load(args.ckpt)` and no map_location, so its tensors were first
# rebuilt on the GPU they had been saved from, and resuming used much more
# GPU memory than training from scratch. The PR emptied the CUDA cache after
# loading; the maintainer answered that
# `torch.load(args.ckpt, map_location=lambda storage, loc: storage)`
# resolves it, and that is what the repository later did ("Set
# map_location").
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
from torch import nn, optim


class Generator(nn.Module):
    def __init__(self, size, latent):
        super().__init__()
        self.size = size
        self.net = nn.Sequential(nn.Linear(latent, 512), nn.LeakyReLU(0.2), nn.Linear(512, 3 * size * size))

    def forward(self, z):
        return self.net(z).view(-1, 3, self.size, self.size)


class Discriminator(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * size * size, 512), nn.LeakyReLU(0.2), nn.Linear(512, 1))

    def forward(self, img):
        return self.net(img)


if __name__ == "__main__":
    device = "cuda"
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--ckpt", type=str, default=None)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    n_gpu = int(os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else 1
    args.distributed = n_gpu > 1
    if args.distributed:
        torch.cuda.set_device(args.local_rank)
        torch.distributed.init_process_group(backend="nccl", init_method="env://")
    args.start_iter = 0
    generator = Generator(args.size, 512).to(device)
    discriminator = Discriminator(args.size).to(device)
    g_ema = Generator(args.size, 512).to(device)
    g_ema.eval()
    g_optim = optim.Adam(generator.parameters(), lr=args.lr, betas=(0, 0.99))
    d_optim = optim.Adam(discriminator.parameters(), lr=args.lr, betas=(0, 0.99))
    if args.ckpt is not None:
        print("load model:", args.ckpt)
        ckpt = torch.load(args.ckpt)  # <- bug
        try:
            args.start_iter = int(os.path.splitext(os.path.basename(args.ckpt))[0])
        except ValueError:
            pass
        generator.load_state_dict(ckpt["g"])
        discriminator.load_state_dict(ckpt["d"])
        g_ema.load_state_dict(ckpt["g_ema"])
        g_optim.load_state_dict(ckpt["g_optim"])
        d_optim.load_state_dict(ckpt["d_optim"])
    if args.distributed:
        generator = nn.parallel.DistributedDataParallel(generator, device_ids=[args.local_rank], output_device=args.local_rank, broadcast_buffers=False)
        discriminator = nn.parallel.DistributedDataParallel(discriminator, device_ids=[args.local_rank], output_device=args.local_rank, broadcast_buffers=False)
