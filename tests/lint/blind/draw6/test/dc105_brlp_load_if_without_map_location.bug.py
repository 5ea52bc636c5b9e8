# devcheck bug corpus: DC105
# From: https://github.com/LemuelPuglisi/BrLP/pull/3
# The networks module builds each model (autoencoder, discriminator, UNet)
# and, when a checkpoint path is given, loads it with torch.load(path) and no
# map_location. The released checkpoints were saved from a GPU, so building
# the pipeline on a machine without one (or on the CPU) crashes in
# torch.load.
# Written for devcheck's tests after the thread; not the project's code.
import os
from typing import Optional

import torch
import torch.nn as nn
from generative.networks.nets import AutoencoderKL, PatchDiscriminator


def load_if(checkpoints_path: Optional[str], network: nn.Module) -> nn.Module:
    if checkpoints_path is not None:
        assert os.path.exists(checkpoints_path), "Invalid path"
        network.load_state_dict(torch.load(checkpoints_path))  # <- bug
    return network


def init_autoencoder(checkpoints_path: Optional[str] = None) -> nn.Module:
    autoencoder = AutoencoderKL(spatial_dims=3, in_channels=1, out_channels=1, latent_channels=3,
                                num_channels=(64, 128, 128, 128), num_res_blocks=2,
                                norm_num_groups=32, norm_eps=1e-06,
                                attention_levels=(False, False, False, False),
                                with_decoder_nonlocal_attn=False, with_encoder_nonlocal_attn=False)
    return load_if(checkpoints_path, autoencoder)


def init_patch_discriminator(checkpoints_path: Optional[str] = None) -> nn.Module:
    disc = PatchDiscriminator(spatial_dims=3, num_layers_d=3, num_channels=32, in_channels=1, out_channels=1)
    return load_if(checkpoints_path, disc)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    autoencoder = init_autoencoder("checkpoints/autoencoder.pth").to(device)
    discriminator = init_patch_discriminator("checkpoints/discriminator.pth").to(device)
    with torch.no_grad():
        mri = torch.randn(1, 1, 64, 64, 64, device=device)
        z_mu, _ = autoencoder.encode(mri)
        print(z_mu.shape, discriminator(autoencoder.decode(z_mu))[-1].shape)
