# devcheck bug corpus: DC120
# From: https://github.com/huchenlei/ComfyUI-layerdiffuse/issues/28
# From: https://github.com/huchenlei/ComfyUI-layerdiffuse/pull/29
# The fix (commit dcbda20) remembers the input image's device and dtype and
# returns the decoded pixels with alpha there, so the node's outputs are on
# the CPU like the other nodes' images.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet1024(nn.Module):
    def __init__(self, in_channels=3, out_channels=4):
        super().__init__()
        self.latent_proj = nn.Conv2d(4, 64, 1)
        self.body = nn.Sequential(nn.Conv2d(in_channels + 64, 64, 3, padding=1), nn.SiLU(), nn.Conv2d(64, out_channels, 3, padding=1))

    def forward(self, pixel, latent):
        lat = F.interpolate(self.latent_proj(latent), size=pixel.shape[-2:], mode="nearest")
        return self.body(torch.cat([pixel, lat], dim=1))


class TransparentVAEDecoder:
    def __init__(self, sd, device, dtype):
        self.load_device, self.dtype = device, dtype
        model = UNet1024(in_channels=3, out_channels=4)
        model.load_state_dict(sd, strict=True)
        model.to(self.load_device, dtype=self.dtype)
        self.model = model.eval()

    @torch.no_grad()
    def decode_pixel(self, pixel, latent):
        assert pixel.shape[1] == 3
        pixel_device = pixel.device  # <- fixed
        pixel_dtype = pixel.dtype  # <- fixed
        pixel = pixel.to(device=self.load_device, dtype=self.dtype)
        latent = latent.to(device=self.load_device, dtype=self.dtype)
        y = self.model(pixel, latent).clip(0, 1)
        assert y.shape[1] == 4
        return y.to(pixel_device, dtype=pixel_dtype)  # <- fixed


class LayeredDiffusionDecode:
    def __init__(self, sd, device):
        self.vae_transparent_decoder = TransparentVAEDecoder(sd, device=device, dtype=torch.float32)

    def decode(self, samples, images):
        pixel = images.movedim(-1, 1)
        pixel_with_alpha = self.vae_transparent_decoder.decode_pixel(pixel, samples["samples"]).movedim(1, -1)
        return pixel_with_alpha[..., 1:], pixel_with_alpha[..., 0]


def vae_encode_for_inpaint(vae, pixels, mask, grow_mask_by=6):
    mask = F.interpolate(mask.reshape((-1, 1, mask.shape[-2], mask.shape[-1])), size=(pixels.shape[1], pixels.shape[2]), mode="bilinear")
    pixels = pixels.clone()
    m = (1.0 - mask.round()).squeeze(1)
    for i in range(3):
        pixels[:, :, :, i] -= 0.5
        pixels[:, :, :, i] *= m
        pixels[:, :, :, i] += 0.5
    return {"samples": vae(pixels.movedim(-1, 1)), "noise_mask": mask}


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    sd = UNet1024().state_dict()
    decoder_node = LayeredDiffusionDecode(sd, device)
    images = torch.rand(1, 512, 512, 3)
    samples = {"samples": torch.randn(1, 4, 64, 64)}
    image, mask = decoder_node.decode(samples, images)
    vae_encoder = nn.Conv2d(3, 4, 8, stride=8)
    encoded = vae_encode_for_inpaint(vae_encoder, images, mask)
    print(encoded["samples"].shape)
