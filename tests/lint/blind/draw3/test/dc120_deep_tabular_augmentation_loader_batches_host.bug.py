# devcheck bug corpus: DC120
# From: https://github.com/lschmiddey/deep_tabular_augmentation/issues/11
# The library's data loaders wrapped TensorDatasets built from NumPy arrays
# and its Runner fed each batch straight to the autoencoder. A user who moved
# the autoencoder to the GPU, as the README does, got "Expected all tensors
# to be on the same device" in the first forward: nothing moved the batches.
# The maintainer's fix gave create_loaders a device and a collate_fn that
# moves each batch there.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def create_datasets_no_target_var(train_data: np.ndarray, test_data: np.ndarray):
    trn_ds = TensorDataset(torch.tensor(train_data).float(), torch.zeros(len(train_data)).long())
    tst_ds = TensorDataset(torch.tensor(test_data).float(), torch.zeros(len(test_data)).long())
    return trn_ds, tst_ds


def create_loaders(data, bs=128, jobs=0):
    trn_ds, tst_ds = data
    trn_dl = DataLoader(trn_ds, batch_size=bs, shuffle=True, num_workers=jobs)
    tst_dl = DataLoader(tst_ds, batch_size=bs, shuffle=False, num_workers=jobs)
    return trn_dl, tst_dl


class DataBunch:
    def __init__(self, train_dl, test_dl):
        self.train_dl, self.test_dl = train_dl, test_dl


class Autoencoder(nn.Module):
    def __init__(self, d_in, latent=8):
        super().__init__()
        self.enc = nn.Linear(d_in, 2 * latent)
        self.dec = nn.Linear(latent, d_in)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar):
    return F.mse_loss(recon, x) - 0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())


class Runner:
    def one_batch(self, xb):
        self.xb = xb
        self.recon_batch, self.mu, self.logvar = self.model(self.xb)  # <- bug
        self.loss = self.loss_func(self.recon_batch, self.xb, self.mu, self.logvar)
        if not self.in_train:
            return
        self.loss.backward()
        self.opt.step()
        self.opt.zero_grad()

    def all_batches(self, dl):
        for xb, _ in dl:
            self.one_batch(xb)

    def fit(self, epochs, model, opt, loss_func, data):
        self.model, self.opt, self.loss_func, self.data = model, opt, loss_func, data
        for _ in range(epochs):
            self.in_train = True
            self.model.train()
            self.all_batches(self.data.train_dl)
            self.in_train = False
            self.model.eval()
            with torch.no_grad():
                self.all_batches(self.data.test_dl)


if __name__ == "__main__":
    DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    X_train, X_test = np.random.rand(1000, 12), np.random.rand(200, 12)
    datasets = create_datasets_no_target_var(X_train, X_test)
    data = DataBunch(*create_loaders(datasets, bs=1024))
    model = Autoencoder(12).to(DEVICE)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Runner().fit(10, model, opt, vae_loss, data)
