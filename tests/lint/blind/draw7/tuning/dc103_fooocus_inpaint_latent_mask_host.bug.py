# devcheck bug corpus: DC103
# From: https://github.com/lllyasviel/Fooocus/issues/1419
# Inpainting in --always-gpu mode: the inpaint mask comes from NumPy through
# numpy_to_pytorch and is pooled to the latent size on the CPU, while the VAE
# now leaves the latent on the GPU; the inpaint head's input concatenates the
# two.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def numpy_to_pytorch(x):
    y = x.astype(np.float32) / 255.0
    y = np.ascontiguousarray(y[None].copy())
    return torch.from_numpy(y).float()


class VAE:
    def __init__(self, device, offload):
        self.device, self.offload = device, offload
        self.encoder = nn.Conv2d(3, 4, kernel_size=8, stride=8).to(device)

    def encode(self, pixels):
        latent = self.encoder(pixels.movedim(-1, 1).to(self.device))
        return latent.cpu() if self.offload else latent


def encode_vae_inpaint(vae, pixels, mask):
    w = mask.round()[..., None]
    pixels = pixels * (1 - w) + 0.5 * w
    latent = vae.encode(pixels)
    B, C, H, W = latent.shape
    latent_mask = mask[:, None, :, :]
    latent_mask = F.interpolate(latent_mask, size=(H * 8, W * 8), mode="bilinear").round()
    latent_mask = F.max_pool2d(latent_mask, (8, 8)).round()  # <- bug
    return latent, latent_mask


class InpaintHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Parameter(torch.empty(size=(320, 5, 3, 3)))

    def forward(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1), "replicate"), self.head)


def patch_inpaint(inpaint_latent, inpaint_latent_mask, head):
    feed = torch.cat([inpaint_latent_mask, inpaint_latent * 0.13025], dim=1)
    head.to(device=feed.device, dtype=feed.dtype)
    return head(feed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--always-gpu", action="store_true")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    vae = VAE(device, offload=not args.always_gpu)
    image = np.random.randint(0, 255, (512, 512, 3), dtype=np.uint8)
    mask = np.zeros((512, 512), dtype=np.uint8)
    mask[128:384, 128:384] = 255
    inpaint_pixel_image = numpy_to_pytorch(image)
    inpaint_pixel_mask = numpy_to_pytorch(mask)
    latent_inpaint, latent_mask = encode_vae_inpaint(vae, inpaint_pixel_image, inpaint_pixel_mask)
    feature = patch_inpaint(latent_inpaint, latent_mask, InpaintHead())
    print(feature.shape)
