# devcheck bug corpus: DC105
# From: https://github.com/drivendataorg/zamba/pull/272
# Zamba's video classifiers (LightningModules) are saved with to_disk from
# GPU training and read back with Lightning's load_from_checkpoint, which
# torch.loads the file; no map_location was given (from_disk, the predict
# path and the resume path all called load_from_checkpoint bare), so a
# checkpoint saved from a GPU could not be read on a CPU-only machine, and
# the tests failed there. The PR makes from_disk load with
# map_location="cpu" and routes the other loads through it ("moving to GPU
# is handled by `devices` in pl.Trainer").
# Written for devcheck's tests after the thread; not the project's code.
import os

import pytorch_lightning as pl
import timm
import torch
from torch import nn


class ZambaVideoClassificationLightningModule(pl.LightningModule):
    def __init__(self, species=("blank", "animal"), lr=1e-3, **kwargs):
        super().__init__()
        self.save_hyperparameters()
        self.species = list(species)
        self.lr = lr

    def configure_optimizers(self):
        return torch.optim.Adam(filter(lambda p: p.requires_grad, self.parameters()), lr=self.lr)

    def to_disk(self, path: os.PathLike):
        checkpoint = {
            "state_dict": self.state_dict(),
            "hyper_parameters": self.hparams,
            "global_step": self.global_step,
            "pytorch-lightning_version": pl.__version__,
        }
        torch.save(checkpoint, path)

    @classmethod
    def from_disk(cls, path: os.PathLike):
        return cls.load_from_checkpoint(path)  # <- bug


class TimeDistributedEfficientNet(ZambaVideoClassificationLightningModule):
    def __init__(self, num_frames=16, finetune_from=None, **kwargs):
        super().__init__(**kwargs)
        if finetune_from is None:
            efficientnet = timm.create_model("efficientnetv2_rw_m", pretrained=True)
            efficientnet.classifier = nn.Identity()
        else:
            efficientnet = self.load_from_checkpoint(finetune_from).base  # <- bug
        self.base = efficientnet
        self.head = nn.Linear(2152, len(self.species))
        self.num_frames = num_frames

    def forward(self, x):
        b, t = x.shape[:2]
        feats = self.base(x.flatten(0, 1)).view(b, t, -1).max(dim=1).values
        return self.head(feats)


def instantiate_model(checkpoint, labels=None, **hparams):
    if labels is None:
        return TimeDistributedEfficientNet.load_from_checkpoint(checkpoint_path=checkpoint)  # <- bug
    return TimeDistributedEfficientNet.load_from_checkpoint(checkpoint_path=checkpoint, **hparams)  # <- bug


def predict(checkpoint, videos, gpus=1):
    model = instantiate_model(checkpoint)
    trainer = pl.Trainer(accelerator="gpu" if gpus > 0 else "cpu", devices=gpus or 1)
    return trainer.predict(model, videos)
