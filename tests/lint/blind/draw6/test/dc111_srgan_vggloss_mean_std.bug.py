# devcheck bug corpus: DC111
# From: https://github.com/Lornatang/SRGAN-PyTorch/issues/22
# From: https://github.com/Lornatang/SRGAN-PyTorch/commit/59166c507cb98c3ee82813cc92e08a1f52b954ec
# The VGG content loss keeps the ImageNet mean and std as plain tensor
# attributes; content_criterion.cuda(gpu) moves the VGG features but not
# them, so normalising the GPU images in forward mixes cuda:0 and cpu during
# the GAN epochs.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
import torchvision


class VGGLoss(nn.Module):
    def __init__(self, feature_layer=35):
        super().__init__()
        vgg = torchvision.models.vgg19(weights="IMAGENET1K_V1")
        self.features = nn.Sequential(*list(vgg.features.children())[:feature_layer]).eval()
        for p in self.features.parameters():
            p.requires_grad = False
        self.mean = torch.Tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)  # <- bug
        self.std = torch.Tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)  # <- bug

    def forward(self, source, target):
        source = (source + 1) / 2
        target = (target + 1) / 2
        source = (source - self.mean) / self.std
        target = (target - self.mean) / self.std
        return nn.functional.l1_loss(self.features(source), self.features(target))


def train_gan(dataloader, discriminator, generator, pixel_criterion, content_criterion,
              adversarial_criterion, optimizer_d, optimizer_g, gpu):
    for lr, hr in dataloader:
        lr = lr.cuda(gpu, non_blocking=True)
        hr = hr.cuda(gpu, non_blocking=True)
        real_label = torch.full((lr.size(0), 1), 1.0, dtype=lr.dtype, device=lr.device)
        fake_label = torch.full((lr.size(0), 1), 0.0, dtype=lr.dtype, device=lr.device)

        sr = generator(lr)
        optimizer_d.zero_grad()
        d_loss = adversarial_criterion(discriminator(hr), real_label) + \
            adversarial_criterion(discriminator(sr.detach()), fake_label)
        d_loss.backward()
        optimizer_d.step()

        optimizer_g.zero_grad()
        pixel_loss = pixel_criterion(sr, hr.detach())
        content_loss = content_criterion(sr, hr.detach())
        adversarial_loss = adversarial_criterion(discriminator(sr), real_label)
        g_loss = pixel_loss + 0.006 * content_loss + 0.001 * adversarial_loss
        g_loss.backward()
        optimizer_g.step()


def main_worker(gpu, generator, discriminator, dataloader, epochs):
    torch.cuda.set_device(gpu)
    discriminator = discriminator.cuda(gpu)
    generator = generator.cuda(gpu)
    pixel_criterion = nn.MSELoss().cuda(gpu)
    content_criterion = VGGLoss().cuda(gpu)
    adversarial_criterion = nn.BCEWithLogitsLoss().cuda(gpu)
    optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=1e-4)
    optimizer_g = torch.optim.Adam(generator.parameters(), lr=1e-4)
    for _ in range(epochs):
        train_gan(dataloader, discriminator, generator, pixel_criterion, content_criterion,
                  adversarial_criterion, optimizer_d, optimizer_g, gpu)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=0)
    args = parser.parse_args()
