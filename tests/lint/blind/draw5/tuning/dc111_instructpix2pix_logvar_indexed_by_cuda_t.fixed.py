# devcheck bug corpus: DC111
# From: https://github.com/timothybrooks/instruct-pix2pix/issues/151
# Fixed (the change the reporter made, with which training ran on): the
# loss indexes the CPU logvar with the timesteps moved to the CPU, then
# moves the picked values to the device; logvar stays a plain attribute.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class DDPM(nn.Module):
    def __init__(self, unet, timesteps=1000, logvar_init=0.0, learn_logvar=False,
                 l_simple_weight=1.0, original_elbo_weight=0.0):
        super().__init__()
        self.model = unet
        self.num_timesteps = timesteps
        self.l_simple_weight, self.original_elbo_weight = l_simple_weight, original_elbo_weight
        betas = np.linspace(1e-4, 2e-2, timesteps)
        alphas_cumprod = np.cumprod(1.0 - betas)
        self.register_buffer("sqrt_alphas_cumprod", torch.tensor(np.sqrt(alphas_cumprod), dtype=torch.float32))
        self.register_buffer("sqrt_one_minus_alphas_cumprod",
                             torch.tensor(np.sqrt(1.0 - alphas_cumprod), dtype=torch.float32))
        lvlb = betas ** 2 / (2 * (1 - betas) * (1 - alphas_cumprod))
        lvlb[0] = lvlb[1]
        self.register_buffer("lvlb_weights", torch.tensor(lvlb, dtype=torch.float32))
        self.learn_logvar = learn_logvar
        self.logvar = torch.full(fill_value=logvar_init, size=(self.num_timesteps,))  # <- fixed
        if self.learn_logvar:
            self.logvar = nn.Parameter(self.logvar, requires_grad=True)

    @property
    def device(self):
        return self.sqrt_alphas_cumprod.device

    def q_sample(self, x_start, t, noise):
        a = self.sqrt_alphas_cumprod[t].view(-1, 1, 1, 1)
        b = self.sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1)
        return a * x_start + b * noise

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        model_output = self.model(self.q_sample(x_start, t, noise))
        loss_simple = ((model_output - noise) ** 2).mean([1, 2, 3])
        logvar_t = self.logvar[t.cpu()].to(self.device)  # <- fixed
        loss = loss_simple / torch.exp(logvar_t) + logvar_t
        loss = self.l_simple_weight * loss.mean()
        loss_vlb = (self.lvlb_weights[t] * loss_simple).mean()
        return loss + self.original_elbo_weight * loss_vlb

    def forward(self, x):
        t = torch.randint(0, self.num_timesteps, (x.shape[0],), device=self.device).long()
        return self.p_losses(x, t)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    unet = nn.Sequential(nn.Conv2d(4, 64, 3, padding=1), nn.SiLU(), nn.Conv2d(64, 4, 3, padding=1))
    model = DDPM(unet).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(10):
        loss = model(torch.randn(8, 4, 32, 32, device=device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
