# devcheck bug corpus: DC101
# From: https://github.com/prism-oncology/scyan/issues/23
# From: https://github.com/prism-oncology/scyan/commit/ce78bb2b807e3edd336cb356b8a7013556f523c3
# The prior's covariance is a buffer rebuilt by the prior_std setter. At the
# end of the warm-up epochs the model sets prior_std again, while Lightning
# has the module on the GPU, and the setter registers torch.eye(n) * std**2
# made on the CPU. From then on prior_h.log_prob(diff) solves a triangular
# system with the CPU covariance against diff on cuda:0.
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
from torch import distributions, nn


class PriorDistribution(pl.LightningModule):
    def __init__(self, rho, prior_std):
        super().__init__()
        self.n_markers = rho.shape[1]
        self.register_buffer("rho", rho)
        self.register_buffer("loc", torch.zeros(self.n_markers))
        self.register_buffer("modes", rho[None, ...])
        self.prior_std = prior_std

    @property
    def prior_std(self):
        return self._prior_std

    @prior_std.setter
    def prior_std(self, std):
        self._prior_std = std
        self.register_buffer("cov", torch.eye(self.n_markers) * std ** 2)  # <- bug

    @property
    def prior_h(self):
        return distributions.MultivariateNormal(self.loc, self.cov)

    def log_prob(self, u):
        diff = u[:, None, :] - self.modes
        return torch.logsumexp(self.prior_h.log_prob(diff), dim=1)


class Scyan(pl.LightningModule):
    def __init__(self, rho, prior_std=0.3, warm_up=(0.35, 4)):
        super().__init__()
        self.save_hyperparameters(ignore=["rho"])
        self.flow = nn.Sequential(nn.Linear(rho.shape[1], 64), nn.ReLU(), nn.Linear(64, rho.shape[1]))
        self.prior = PriorDistribution(rho, max(warm_up[0], prior_std))

    def training_step(self, batch, batch_idx):
        (x,) = batch
        loss = -self.prior.log_prob(self.flow(x)).mean()
        self.log("loss", loss)
        return loss

    def on_train_epoch_end(self):
        if self.current_epoch == self.hparams.warm_up[1] - 1:
            self.prior.prior_std = self.hparams.prior_std

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=5e-4)


rho = torch.tensor([[1.0, -1.0, 0.0], [-1.0, 1.0, 1.0]])
cells = torch.utils.data.TensorDataset(torch.randn(4096, 3))
trainer = pl.Trainer(accelerator="auto", max_epochs=8)
trainer.fit(Scyan(rho), torch.utils.data.DataLoader(cells, batch_size=256))
