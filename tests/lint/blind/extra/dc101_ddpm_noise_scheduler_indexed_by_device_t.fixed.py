# devcheck bug corpus: DC101
# From: https://github.com/explainingai-code/DDPM-Pytorch/issues/5
# Fixed: the CPU tables are indexed with the timesteps copied to the host, and
# what they give is moved to the sample's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class LinearNoiseScheduler:
    def __init__(self, num_timesteps, beta_start, beta_end):
        self.num_timesteps = num_timesteps
        self.betas = torch.linspace(beta_start, beta_end, num_timesteps)  # <- fixed
        self.alphas = 1.0 - self.betas
        self.alpha_cum_prod = torch.cumprod(self.alphas, dim=0)
        self.sqrt_alpha_cum_prod = torch.sqrt(self.alpha_cum_prod)
        self.sqrt_one_minus_alpha_cum_prod = torch.sqrt(1 - self.alpha_cum_prod)

    def add_noise(self, original, noise, t):
        batch_size = original.shape[0]
        sqrt_alpha_cum_prod = self.sqrt_alpha_cum_prod[t.cpu()].reshape(batch_size, 1, 1, 1).to(original.device)  # <- fixed
        sqrt_one_minus_alpha_cum_prod = self.sqrt_one_minus_alpha_cum_prod[t.cpu()].reshape(batch_size, 1, 1, 1).to(original.device)  # <- fixed
        return sqrt_alpha_cum_prod * original + sqrt_one_minus_alpha_cum_prod * noise


class Unet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, x, t):
        return self.conv(x)


def train(data_loader, num_epochs, device):
    scheduler = LinearNoiseScheduler(num_timesteps=1000, beta_start=0.0001, beta_end=0.02)
    model = Unet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for _ in range(num_epochs):
        for im in data_loader:
            im = im.float().to(device)
            noise = torch.randn_like(im).to(device)
            t = torch.randint(0, 1000, (im.shape[0],)).to(device)
            noisy_im = scheduler.add_noise(im, noise, t)
            loss = nn.functional.mse_loss(model(noisy_im, t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
