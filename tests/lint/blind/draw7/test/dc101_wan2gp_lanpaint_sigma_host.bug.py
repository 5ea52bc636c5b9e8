# devcheck bug corpus: DC101
# From: https://github.com/deepbeepmeep/Wan2GP/pull/2099
# The inpainting pipeline hands LanPaint the timestep as a 0-dim tensor on
# the accelerator (t / 1000); LanPaint rebuilds it as a one-element tensor
# with torch.tensor([sigma.item()]) and no device, so the noisy-image mix of
# the device latents with that (1,)-shaped host sigma fails.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class LanPaint:
    def __init__(self, model, n_steps=5, friction=15.0, lamb=4.0, beta=1.0, step_size=0.2, is_flow=True):
        self.inner_model = model
        self.n_steps = n_steps
        self.friction = friction
        self.lamb = lamb
        self.beta = beta
        self.step_size = step_size
        self.is_flow = is_flow

    def __call__(self, x, latent_image, noise, sigma, latent_mask, cfg_scale):
        self.latent_image = latent_image
        self.noise = noise
        return self.langevin(x, sigma, latent_mask, cfg_scale)

    def langevin(self, x, sigma, latent_mask, cfg_scale):
        if len(sigma.shape) == 0:
            sigma = torch.tensor([sigma.item()])  # <- bug
        sigma = sigma.view(-1, *([1] * (x.dim() - 1)))
        noisy_image = self.latent_image * (1.0 - sigma) + self.noise * sigma
        y = x * (1 - latent_mask) + noisy_image * latent_mask
        for _ in range(self.n_steps):
            score = self.score(y, sigma, cfg_scale)
            grad = -(y - (1.0 - sigma) * score) / sigma.clamp(min=1e-4) ** 2
            y = y + self.step_size * grad + (2 * self.step_size / self.friction) ** 0.5 * torch.randn_like(y)
            y = x * (1 - latent_mask) + y * latent_mask
        return y

    def score(self, y, sigma, cfg_scale):
        cond, uncond = self.inner_model(y, sigma)
        return uncond + cfg_scale * (cond - uncond)


class TinyFlowModel(torch.nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.net = torch.nn.Conv2d(channels + 1, channels, 3, padding=1)

    def forward(self, x, sigma):
        s = sigma.expand(x.shape[0], 1, x.shape[2], x.shape[3])
        out = self.net(torch.cat([x, s], dim=1))
        return out, 0.9 * out


def inpaint(model, image_latents, mask, steps=20, cfg=4.0):
    device = image_latents.device
    timesteps = torch.linspace(1000, 0, steps + 1, device=device)
    latents = torch.randn_like(image_latents)
    lanpaint_proc = LanPaint(model)
    for i in range(steps):
        t = timesteps[i]
        randn = torch.randn_like(latents)
        latents = lanpaint_proc(latents, image_latents, randn, t / 1000, mask, cfg)
        dt = (timesteps[i + 1] - t) / 1000
        cond, _ = model(latents, (t / 1000).view(1, 1, 1, 1))
        latents = latents + dt * cond
    return latents


if __name__ == "__main__":
    device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
    model = TinyFlowModel().to(device)
    image_latents = torch.randn(1, 16, 64, 64, device=device)
    mask = torch.zeros(1, 1, 64, 64, device=device)
    mask[..., 16:48, 16:48] = 1.0
    with torch.no_grad():
        out = inpaint(model, image_latents, mask)
    print(out.shape)
