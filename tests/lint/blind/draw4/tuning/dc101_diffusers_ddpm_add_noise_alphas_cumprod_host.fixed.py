# devcheck bug corpus: DC101
# From: https://github.com/huggingface/diffusers/pull/648
# From: https://github.com/huggingface/diffusers/commit/33045382290140226c8269b43ab9df9424d8b8be
# The fix (PR #648, commit 3304538) makes add_noise move alphas_cumprod (and the
# timesteps) to the device of the original samples, so the factors are computed on
# the samples' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class DDPMScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=1e-4, beta_end=0.02):
        self.num_train_timesteps = num_train_timesteps
        self.betas = torch.linspace(beta_start, beta_end, num_train_timesteps, dtype=torch.float32)
        self.alphas = 1.0 - self.betas
        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)  # <- fixed

    def add_noise(self, original_samples, noise, timesteps):
        if self.alphas_cumprod.device != original_samples.device:  # <- fixed
            self.alphas_cumprod = self.alphas_cumprod.to(original_samples.device)  # <- fixed
        if timesteps.device != original_samples.device:  # <- fixed
            timesteps = timesteps.to(original_samples.device)  # <- fixed
        sqrt_alpha_prod = self.alphas_cumprod[timesteps] ** 0.5
        sqrt_alpha_prod = sqrt_alpha_prod.flatten()
        while len(sqrt_alpha_prod.shape) < len(original_samples.shape):
            sqrt_alpha_prod = sqrt_alpha_prod.unsqueeze(-1)
        sqrt_one_minus = (1 - self.alphas_cumprod[timesteps]) ** 0.5
        sqrt_one_minus = sqrt_one_minus.flatten()
        while len(sqrt_one_minus.shape) < len(original_samples.shape):
            sqrt_one_minus = sqrt_one_minus.unsqueeze(-1)
        return sqrt_alpha_prod * original_samples + sqrt_one_minus * noise


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.t_embed = nn.Embedding(1000, 32)
        self.inp = nn.Conv2d(3, 32, 3, padding=1)
        self.out = nn.Conv2d(32, 3, 3, padding=1)

    def forward(self, x, t):
        h = self.inp(x) + self.t_embed(t)[:, :, None, None]
        return self.out(F.silu(h))


def train(dataloader, epochs=1):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TinyUNet().to(device)
    noise_scheduler = DDPMScheduler(num_train_timesteps=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(epochs):
        for clean_images in dataloader:
            clean_images = clean_images.to(device)
            noise = torch.randn(clean_images.shape, device=clean_images.device)
            timesteps = torch.randint(0, noise_scheduler.num_train_timesteps, (clean_images.shape[0],), device=clean_images.device).long()
            noisy_images = noise_scheduler.add_noise(clean_images, noise, timesteps)
            loss = F.mse_loss(model(noisy_images, timesteps), noise)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
