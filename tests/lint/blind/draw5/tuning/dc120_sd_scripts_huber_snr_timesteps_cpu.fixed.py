# devcheck bug corpus: DC120
# From: https://github.com/kohya-ss/sd-scripts/issues/2102
# The fix proposed in the thread indexes alphas_cumprod with the timesteps
# moved to its own device (timesteps.to(noise_scheduler.alphas_cumprod.device))
# instead of a CPU copy, wherever add_noise left the schedule.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import math

import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler


def get_noise_noisy_latents_and_timesteps(noise_scheduler, latents):
    noise = torch.randn_like(latents)
    b_size = latents.shape[0]
    timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (b_size,), device=latents.device).long()
    noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
    return noise, noisy_latents, timesteps


def get_huber_threshold(args, timesteps, noise_scheduler):
    if args.huber_schedule == "exponential":
        alpha = -math.log(args.huber_c) / noise_scheduler.config.num_train_timesteps
        return torch.exp(-alpha * timesteps) * args.huber_scale
    if args.huber_schedule == "snr":
        alphas_cumprod = torch.index_select(noise_scheduler.alphas_cumprod, 0, timesteps.to(noise_scheduler.alphas_cumprod.device))  # <- fixed
        sigmas = ((1.0 - alphas_cumprod) / alphas_cumprod) ** 0.5
        result = (1 - args.huber_c) / (1 + sigmas) ** 2 + args.huber_c
        return result.to(timesteps.device)
    return torch.full(timesteps.shape, args.huber_c * args.huber_scale, device=timesteps.device)


def huber_loss(pred, target, huber_c):
    huber_c = huber_c.view(-1, *([1] * (pred.ndim - 1)))
    return (2 * huber_c * (torch.sqrt((pred - target) ** 2 + huber_c ** 2) - huber_c)).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--huber_schedule", default="snr")
    parser.add_argument("--huber_c", type=float, default=0.1)
    parser.add_argument("--huber_scale", type=float, default=1.0)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    noise_scheduler = DDPMScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", num_train_timesteps=1000)
    unet = torch.nn.Conv2d(4, 4, 3, padding=1).to(device)
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    for step in range(10):
        latents = torch.randn(2, 4, 64, 64, device=device)
        noise, noisy_latents, timesteps = get_noise_noisy_latents_and_timesteps(noise_scheduler, latents)
        model_pred = unet(noisy_latents)
        huber_c = get_huber_threshold(args, timesteps, noise_scheduler)
        loss = huber_loss(model_pred.float(), noise.float(), huber_c) if huber_c is not None else F.mse_loss(model_pred, noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
