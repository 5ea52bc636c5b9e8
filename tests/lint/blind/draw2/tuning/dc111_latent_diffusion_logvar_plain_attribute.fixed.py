# devcheck bug corpus: DC111
# From: https://github.com/CompVis/latent-diffusion/pull/282
# Fixed: the loss moves the log-variance table to the module's device before
# indexing it with the timesteps (`self.logvar.to(self.device)[t]`); the
# table is still made in __init__ as before.
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
import torch.nn as nn


class DDPM(pl.LightningModule):
    def __init__(self, unet, timesteps=1000, learn_logvar=False, logvar_init=0.0, l_simple_weight=1.0):
        super().__init__()
        self.model = unet
        self.num_timesteps = timesteps
        self.l_simple_weight = l_simple_weight
        betas = torch.linspace(1e-4, 2e-2, timesteps)
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        self.register_buffer("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
        self.learn_logvar = learn_logvar
        self.logvar = torch.full(fill_value=logvar_init, size=(self.num_timesteps,))  # <- fixed
        if self.learn_logvar:
            self.logvar = nn.Parameter(self.logvar, requires_grad=True)

    def q_sample(self, x_start, t, noise):
        a = self.sqrt_alphas_cumprod[t].view(-1, 1, 1, 1)
        b = self.sqrt_one_minus_alphas_cumprod[t].view(-1, 1, 1, 1)
        return a * x_start + b * noise

    def p_losses(self, x_start, t):
        noise = torch.randn_like(x_start)
        x_noisy = self.q_sample(x_start, t, noise)
        model_output = self.model(x_noisy, t)
        loss_simple = ((model_output - noise) ** 2).mean([1, 2, 3])
        logvar_t = self.logvar.to(self.device)[t]  # <- fixed
        loss = loss_simple / torch.exp(logvar_t) + logvar_t
        return self.l_simple_weight * loss.mean()

    def training_step(self, batch, batch_idx):
        x = batch["image"]
        t = torch.randint(0, self.num_timesteps, (x.shape[0],), device=self.device).long()
        loss = self.p_losses(x, t)
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        params = list(self.model.parameters())
        if self.learn_logvar:
            params.append(self.logvar)
        return torch.optim.AdamW(params, lr=1e-4)


def main(unet, datamodule):
    model = DDPM(unet)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=100)
    trainer.fit(model, datamodule=datamodule)
