# devcheck bug corpus: DC101
# From: https://github.com/luigibonati/mlcolvar/pull/50
# Multi-task training of a collective variable on a GPU: the TDA loss turns the
# target centers and sigmas (given as lists) into tensors on the CPU, and the
# auxiliary time-lagged loss builds its default weights with torch.ones on the
# CPU; both meet the network's outputs on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import lightning
from torch.utils.data import DataLoader, TensorDataset


def correlation_matrix(x, y, w=None):
    if w is None:
        w = torch.ones(x.shape[0])  # <- bug
    corr = torch.einsum("ij, ik, i -> jk", x, y, w) / torch.sum(w)
    return 0.5 * (corr + corr.T)


def tda_loss(h, labels, n_states, target_centers, target_sigmas, alpha=1.0, beta=100.0):
    if not isinstance(target_centers, torch.Tensor):
        target_centers = torch.Tensor(target_centers)  # <- bug
    if not isinstance(target_sigmas, torch.Tensor):
        target_sigmas = torch.Tensor(target_sigmas)  # <- bug
    loss_centers = torch.zeros_like(target_centers)
    loss_sigmas = torch.zeros_like(target_sigmas)
    for i in range(n_states):
        h_i = h[labels == i]
        loss_centers[i] = alpha * (h_i.mean(0) - target_centers[i]).pow(2)
        loss_sigmas[i] = beta * (h_i.std(0) - target_sigmas[i]).pow(2)
    return loss_centers.sum() + loss_sigmas.sum()


class TDALoss(torch.nn.Module):
    def __init__(self, n_states, target_centers, target_sigmas):
        super().__init__()
        self.n_states = n_states
        self.target_centers = target_centers
        self.target_sigmas = target_sigmas

    def forward(self, h, labels):
        return tda_loss(h, labels, self.n_states, self.target_centers, self.target_sigmas)


class MultiTaskTDA(lightning.LightningModule):
    def __init__(self, n_in, n_states, target_centers, target_sigmas, aux_weight=0.1):
        super().__init__()
        self.nn = torch.nn.Sequential(torch.nn.Linear(n_in, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
        self.loss_fn = TDALoss(n_states, target_centers, target_sigmas)
        self.aux_weight = aux_weight

    def forward(self, x):
        return self.nn(x)

    def training_step(self, batch, batch_idx):
        x, labels, x_t, x_lag = batch
        main = self.loss_fn(self(x), labels)
        z_t, z_lag = self(x_t), self(x_lag)
        c_lag = correlation_matrix(z_t, z_lag)
        c_0 = correlation_matrix(z_t, z_t)
        aux = -(c_lag / c_0).trace()
        loss = main + self.aux_weight * aux
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    n = 2000
    x = torch.randn(n, 10)
    labels = torch.randint(0, 2, (n,))
    data = TensorDataset(x, labels, torch.randn(n, 10), torch.randn(n, 10))
    model = MultiTaskTDA(10, n_states=2, target_centers=[[-7.0], [7.0]], target_sigmas=[[0.2], [0.2]])
    trainer = lightning.Trainer(max_epochs=5, accelerator="gpu", devices=1, logger=False)
    trainer.fit(model, DataLoader(data, batch_size=500, shuffle=True))
