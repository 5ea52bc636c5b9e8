# devcheck bug corpus: DC111
# From: https://github.com/gnn-tracking/gnn_tracking/pull/449
# Fixed: __init__ no longer makes a default pos_weight; the loss makes it
# when it is called, with torch.tensor([1.0], device=w.device).
# Written for devcheck's tests after the thread; not the project's code.
from abc import ABC, abstractmethod

import pytorch_lightning as pl
import torch
from pytorch_lightning.core.mixins import HyperparametersMixin
from torch import Tensor as T


def binary_focal_loss(*, inpt: T, target: T, alpha: float, gamma: float, pos_weight: T) -> T:
    pos_term = -alpha * pos_weight * (1 - inpt).pow(gamma) * target * inpt.log()
    neg_term = -(1.0 - alpha) * inpt.pow(gamma) * (1.0 - target) * (1 - inpt).log()
    return torch.mean(pos_term + neg_term)


class FalsifyLowPtEdgeWeightLoss(torch.nn.Module, ABC, HyperparametersMixin):
    def __init__(self, *, pt_thld: float = 0.0):
        super().__init__()
        self.save_hyperparameters()

    def forward(self, *, w: T, y: T, pt: T | None = None) -> T:
        if pt is not None and self.hparams.pt_thld > 0:
            y = y.bool() & (pt > self.hparams.pt_thld)
        return self._forward(w=w, y=y.float())

    @abstractmethod
    def _forward(self, *, w: T, y: T) -> T:
        pass


class EdgeWeightFocalLoss(FalsifyLowPtEdgeWeightLoss):
    def __init__(self, *, alpha=0.25, gamma=2.0, pos_weight=None, **kwargs):
        super().__init__(**kwargs)
        self.save_hyperparameters()

    def _forward(self, *, w: T, y: T) -> T:
        pos_weight = self.hparams.pos_weight  # <- fixed
        if pos_weight is None:  # <- fixed
            pos_weight = torch.tensor([1.0], device=w.device)  # <- fixed
        return binary_focal_loss(
            inpt=w,
            target=y,
            alpha=self.hparams.alpha,
            gamma=self.hparams.gamma,
            pos_weight=pos_weight,  # <- fixed
        )


class EdgeClassifierModule(pl.LightningModule):
    def __init__(self, in_dim, hidden=64):
        super().__init__()
        self.edge_net = torch.nn.Sequential(
            torch.nn.Linear(2 * in_dim, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
        )
        self.loss_fct = EdgeWeightFocalLoss(alpha=0.3)

    def training_step(self, batch, batch_idx):
        x, edge_index, y = batch.x, batch.edge_index, batch.y
        w = torch.sigmoid(self.edge_net(torch.cat([x[edge_index[0]], x[edge_index[1]]], dim=1))).squeeze(1)
        loss = self.loss_fct(w=w, y=y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main(datamodule):
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=50)
    trainer.fit(EdgeClassifierModule(in_dim=14), datamodule=datamodule)
