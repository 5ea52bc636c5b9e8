# devcheck bug corpus: DC120
# From: https://github.com/YosefLab/velovi/issues/9
# The fix takes the device from the module's rates (gamma.device) and moves the
# minibatch's spliced and unspliced counts there before scoring them.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.distributions as D
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class CountsDataset(Dataset):
    def __init__(self, spliced, unspliced):
        self.s, self.u = spliced, unspliced

    def __len__(self):
        return len(self.s)

    def __getitem__(self, i):
        return {"X": self.s[i], "U": self.u[i]}


class VELOVAE(nn.Module):
    def __init__(self, n_genes, n_latent=10, n_states=4):
        super().__init__()
        self.encoder = nn.Linear(2 * n_genes, n_latent)
        self.pi = nn.Linear(n_latent, n_genes * n_states)
        self.rates = nn.Parameter(torch.rand(3, n_genes))
        self.n_genes, self.n_states = n_genes, n_states

    def forward(self, tensors):
        device = self.rates.device
        x = torch.cat([tensors["X"], tensors["U"]], dim=-1).to(device)
        z = self.encoder(torch.log1p(x))
        px_pi = self.pi(z).view(-1, self.n_genes, self.n_states).softmax(-1)
        gamma, beta, alpha = self.rates.exp()
        return {"gamma": gamma, "beta": beta, "alpha": alpha}, {"px_pi": px_pi}

    def get_px(self, px_pi, gamma, beta, alpha):
        mean_u = (alpha / beta).expand(self.n_states, -1).T
        mean_s = (alpha / gamma).expand(self.n_states, -1).T
        mix = D.Categorical(probs=px_pi)
        dist_s = D.MixtureSameFamily(mix, D.Normal(mean_s.expand_as(px_pi), 1.0))
        dist_u = D.MixtureSameFamily(mix, D.Normal(mean_u.expand_as(px_pi), 1.0))
        return dist_s, dist_u


class VELOVI:
    def __init__(self, spliced, unspliced, device):
        self.dataset = CountsDataset(spliced, unspliced)
        self.module = VELOVAE(spliced.shape[1]).to(device)

    @torch.no_grad()
    def get_gene_likelihood(self, n_samples=1, batch_size=64):
        rls = []
        for tensors in DataLoader(self.dataset, batch_size=batch_size):
            samples = []
            for _ in range(n_samples):
                inference_outputs, generative_outputs = self.module.forward(tensors)
                spliced = tensors["X"]
                unspliced = tensors["U"]
                gamma = inference_outputs["gamma"]
                dist_s, dist_u = self.module.get_px(
                    generative_outputs["px_pi"], gamma, inference_outputs["beta"], inference_outputs["alpha"]
                )
                device = gamma.device  # <- fixed
                reconst_loss_s = -dist_s.log_prob(spliced.to(device))  # <- fixed
                reconst_loss_u = -dist_u.log_prob(unspliced.to(device))  # <- fixed
                samples.append(-(reconst_loss_s + reconst_loss_u).cpu().numpy())
            rls.append(np.mean(np.stack(samples), axis=0))
        return np.concatenate(rls, axis=0)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    s = torch.poisson(torch.full((300, 40), 3.0))
    u = torch.poisson(torch.full((300, 40), 1.0))
    vae = VELOVI(s, u, device)
    print(vae.get_gene_likelihood(n_samples=25).shape)


if __name__ == "__main__":
    main()
