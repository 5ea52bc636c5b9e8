# devcheck bug corpus: DC101
# From: https://github.com/CampusAI/Hamiltonian-Generative-Networks/pull/75
# A Hamiltonian generative network keeps its encoder, Hamiltonian network and
# decoder on a device; besides its forward pass it has a method that
# generates a rollout from a random latent sample. That sample was made with
# torch.randn and no device, on the CPU, and went into the networks on the
# GPU. The fix moves the random sample to the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class HGN(nn.Module):
    def __init__(self, latent_channels=16, img_channels=3, device="cpu"):
        super().__init__()
        self.latent_channels = latent_channels
        self.device = device
        self.encoder = nn.Conv2d(img_channels, 2 * latent_channels, 3, padding=1)
        self.hnn = nn.Sequential(nn.Flatten(), nn.LazyLinear(1))
        self.decoder = nn.ConvTranspose2d(latent_channels, img_channels, 4, stride=8, padding=0)

    def step(self, q, p, dt=0.125):
        q = q.detach().requires_grad_()
        p = p.detach().requires_grad_()
        energy = self.hnn(torch.cat([q, p], dim=1)).sum()
        dq, dp = torch.autograd.grad(energy, (q, p), create_graph=True)
        return q + dt * dp, p - dt * dq

    def forward(self, rollout):
        z = self.encoder(rollout[:, 0])
        q, p = z.chunk(2, dim=1)
        frames = []
        for _ in range(rollout.size(1)):
            q, p = self.step(q, p)
            frames.append(self.decoder(q))
        return torch.stack(frames, dim=1)

    def get_random_sample(self, n_steps, img_shape=(32, 32)):
        latent_representation = torch.randn(1, 2 * self.latent_channels, img_shape[0] // 8, img_shape[1] // 8)  # <- bug
        q, p = latent_representation.chunk(2, dim=1)
        frames = []
        for _ in range(n_steps):
            q, p = self.step(q, p)
            frames.append(self.decoder(q))
        return torch.stack(frames, dim=1)


def main():
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    hgn = HGN(device=device).to(device)
    print(hgn.get_random_sample(30).shape)
