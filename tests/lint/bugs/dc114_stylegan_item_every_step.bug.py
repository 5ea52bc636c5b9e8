# devcheck bug corpus: DC114
# From: https://github.com/rosinality/style-based-gan-pytorch/pull/50
# The training loop reads the discriminator and generator losses with .item()
# on every iteration, which synchronises with the GPU each step; the PR calls
# item() less often.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.nn import functional as F


def train(loader, generator, discriminator, g_optimizer, d_optimizer, code_size, device):
    for i, real_image in enumerate(loader):
        real_image = real_image.to(device)
        real_predict = discriminator(real_image)
        gen_in = torch.randn(real_image.size(0), code_size, device=device)
        fake_predict = discriminator(generator(gen_in).detach())
        disc_loss = F.softplus(-real_predict).mean() + F.softplus(fake_predict).mean()
        d_optimizer.zero_grad()
        disc_loss.backward()
        d_optimizer.step()
        disc_loss_val = disc_loss.item()  # <- bug
        gen_loss = F.softplus(-discriminator(generator(gen_in))).mean()
        g_optimizer.zero_grad()
        gen_loss.backward()
        g_optimizer.step()
        gen_loss_val = gen_loss.item()  # <- bug
        print(f"G: {gen_loss_val:.3f}; D: {disc_loss_val:.3f}")
