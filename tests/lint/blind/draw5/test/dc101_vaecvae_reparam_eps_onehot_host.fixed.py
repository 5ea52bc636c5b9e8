# devcheck bug corpus: DC101
# From: https://github.com/timbmg/VAE-CVAE-MNIST/pull/4
# Fixed: the one-hot matrix is moved to the labels' device, the noise is drawn
# with torch.randn_like(std) in a reparameterize method, and the sampling step
# makes its labels and latents and moves them to the device before inference.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchvision import transforms
from torchvision.datasets import MNIST
from torch.utils.data import DataLoader


def to_onehot(idx, n):
    if idx.dim() == 1:
        idx = idx.unsqueeze(1)
    onehot = torch.zeros(idx.size(0), n).to(idx.device)  # <- fixed
    onehot.scatter_(1, idx, 1)
    return onehot


class CVAE(nn.Module):
    def __init__(self, latent_size=2, num_labels=10):
        super().__init__()
        self.latent_size = latent_size
        self.enc = nn.Sequential(nn.Linear(784 + num_labels, 256), nn.ReLU())
        self.to_mean = nn.Linear(256, latent_size)
        self.to_log_var = nn.Linear(256, latent_size)
        self.dec = nn.Sequential(nn.Linear(latent_size + num_labels, 256), nn.ReLU(),
                                 nn.Linear(256, 784), nn.Sigmoid())

    def forward(self, x, c):
        x = x.view(-1, 784)
        h = self.enc(torch.cat((x, to_onehot(c, 10)), dim=-1))
        means, log_var = self.to_mean(h), self.to_log_var(h)
        z = self.reparameterize(means, log_var)  # <- fixed
        return self.dec(torch.cat((z, to_onehot(c, 10)), dim=-1)), means, log_var

    def reparameterize(self, mu, log_var):
        std = torch.exp(0.5 * log_var)
        eps = torch.randn_like(std)  # <- fixed
        return mu + eps * std

    def inference(self, z, c=None):
        return self.dec(torch.cat((z, to_onehot(c, 10)), dim=-1))  # <- fixed


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(MNIST("data", train=True, transform=transforms.ToTensor(),
                              download=True), batch_size=64, shuffle=True)
    vae = CVAE().to(device)
    optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
    for epoch in range(10):
        for it, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            recon, mean, log_var = vae(x, y)
            bce = nn.functional.binary_cross_entropy(recon, x.view(-1, 784), reduction="sum")
            kld = -0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())
            loss = (bce + kld) / x.size(0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if it % 100 == 0:
                print(epoch, it, loss.item())
                c = torch.arange(0, 10).long().unsqueeze(1).to(device)  # <- fixed
                z = torch.randn([c.size(0), vae.latent_size]).to(device)  # <- fixed
                samples = vae.inference(z, c=c)
                print(samples.shape)


if __name__ == "__main__":
    main()
