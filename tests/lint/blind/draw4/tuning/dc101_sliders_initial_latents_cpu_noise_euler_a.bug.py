# devcheck bug corpus: DC101
# From: https://github.com/rohitgandikota/sliders/issues/20
# The slider training script draws its initial noise on the CPU (torch.randn with
# device="cpu") and scales it by the scheduler's init_noise_sigma; after
# set_timesteps(..., device=device) the Euler-ancestral scheduler's init_noise_sigma
# is a tensor on the GPU, so noise * init_noise_sigma mixes cpu and cuda:0.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
from diffusers import EulerAncestralDiscreteScheduler, SchedulerMixin, UNet2DConditionModel

UNET_IN_CHANNELS = 4
VAE_SCALE_FACTOR = 8


def get_random_noise(batch_size, height, width, generator=None):
    return torch.randn(  # <- bug
        (batch_size, UNET_IN_CHANNELS, height // VAE_SCALE_FACTOR, width // VAE_SCALE_FACTOR),
        generator=generator,
        device="cpu",
    )


def get_initial_latents(scheduler: SchedulerMixin, n_imgs, height, width, n_prompts, generator=None):
    noise = get_random_noise(n_imgs, height, width, generator=generator).repeat(n_prompts, 1, 1, 1)
    latents = noise * scheduler.init_noise_sigma  # <- bug
    return latents


def load_models(pretrained, scheduler_name):
    unet = UNet2DConditionModel.from_pretrained(pretrained, subfolder="unet")
    if scheduler_name == "euler_a":
        scheduler = EulerAncestralDiscreteScheduler.from_pretrained(pretrained, subfolder="scheduler")
    else:
        raise ValueError(scheduler_name)
    return unet, scheduler


def train(args, device):
    weight_dtype = torch.float16
    unet, noise_scheduler = load_models(args.pretrained, args.noise_scheduler)
    unet.to(device, dtype=weight_dtype)
    unet.eval()
    for step in range(args.iterations):
        with torch.no_grad():
            noise_scheduler.set_timesteps(args.max_denoising_steps, device=device)
            latents = get_initial_latents(noise_scheduler, 1, 512, 512, 1).to(device, dtype=weight_dtype)
            t = noise_scheduler.timesteps[0]
            cond = torch.zeros(1, 77, 768, device=device, dtype=weight_dtype)
            latents = noise_scheduler.scale_model_input(latents, t)
            noise_pred = unet(latents, t, encoder_hidden_states=cond).sample
            print(step, noise_pred.abs().mean().item())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained", default="CompVis/stable-diffusion-v1-4")
    parser.add_argument("--noise_scheduler", default="euler_a")
    parser.add_argument("--max_denoising_steps", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--device", type=int, default=0)
    args = parser.parse_args()
    device = torch.device(f"cuda:{args.device}")
    train(args, device)
