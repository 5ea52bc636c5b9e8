# devcheck bug corpus: DC120
# From: https://github.com/ExponentialML/Text-To-Video-Finetuning/pull/88
# The merged change (the method settled on in #84) keeps the latents on the
# host in both modes, the noise included, and moves each window to the
# pipeline's device where the loop slices it for the UNet.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from diffusers import DPMSolverMultistepScheduler, TextToVideoSDPipeline
from einops import rearrange


def initialize_pipeline(model, device="cuda"):
    pipe = TextToVideoSDPipeline.from_pretrained(model, torch_dtype=torch.half).to(device)
    pipe.scheduler = DPMSolverMultistepScheduler.from_config(pipe.scheduler.config)
    pipe.vae.enable_slicing()
    return pipe


def encode(pipe, pixels, batch_size=8):
    nf = pixels.shape[2]
    pixels = rearrange(pixels, "b c f h w -> (b f) c h w")
    out = []
    for i in range(0, pixels.shape[0], batch_size):
        chunk = pixels[i : i + batch_size].to(pipe.device, dtype=torch.half)
        lat = pipe.vae.encode(chunk).latent_dist.sample()
        out.append(lat.mul(pipe.vae.config.scaling_factor).cpu())
    return rearrange(torch.cat(out), "(b f) c h w -> b c f h w", f=nf)


def prepare_input_latents(pipe, batch_size, num_frames, height, width, init_video):
    if init_video is None:
        s = pipe.vae_scale_factor
        shape = (batch_size, pipe.unet.config.in_channels, num_frames, height // s, width // s)
        return torch.randn(shape, dtype=torch.half)  # <- fixed
    latents = encode(pipe, init_video)
    return latents.repeat(batch_size, 1, 1, 1, 1) if latents.shape[0] != batch_size else latents


@torch.inference_mode()
def diffuse(pipe, latents, prompt, init_weight=0.5, steps=25, guidance=12.0, window=8):
    device = pipe.device
    embeds = pipe._encode_prompt(prompt, device, 1, True, negative_prompt=None)
    pipe.scheduler.set_timesteps(steps, device=device)
    timesteps = pipe.scheduler.timesteps[round(init_weight * steps):]
    latents = pipe.scheduler.add_noise(latents, torch.randn_like(latents), timesteps[:1])
    b, _, nf, _, _ = latents.shape
    for t in timesteps:
        new_latents = torch.zeros_like(latents)
        for idx in range(0, nf, window):
            win = latents[:, :, idx : idx + window].to(device)  # <- fixed
            noise = pipe.unet(torch.cat([win] * 2), t, encoder_hidden_states=embeds).sample
            uncond, text = noise.chunk(2)
            noise = uncond + guidance * (text - uncond)
            step = pipe.scheduler.step(
                rearrange(noise, "b c f h w -> (b f) c h w"), t, rearrange(win, "b c f h w -> (b f) c h w")
            ).prev_sample
            new_latents[:, :, idx : idx + window] = rearrange(step, "(b f) c h w -> b c f h w", b=b).cpu()
        latents = new_latents
    return latents


def main():
    pipe = initialize_pipeline("cerspense/zeroscope_v2_576w", "cuda")
    video = torch.rand(1, 3, 16, 320, 576) * 2 - 1
    latents = prepare_input_latents(pipe, 1, 16, 320, 576, init_video=video)
    out = diffuse(pipe, latents, ["a boat on a lake at dawn"])
    print(out.shape)


if __name__ == "__main__":
    main()
