# devcheck bug corpus: DC105
# From: https://github.com/decoderesearch/SAELens/pull/731
# The trainer keeps its sparsity counters on cfg.device, but restoring them on
# resume calls torch.load without map_location: a checkpoint written on another
# device comes back there (a CUDA one fails outright on a CPU-only machine).
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn

TRAINER_STATE_FILENAME = "trainer_state.pt"


@dataclass
class TrainerConfig:
    d_sae: int = 256
    device: str = "cpu"
    lr: float = 3e-4


class SparseAutoencoder(nn.Module):
    def __init__(self, d_in, d_sae):
        super().__init__()
        self.enc = nn.Linear(d_in, d_sae)
        self.dec = nn.Linear(d_sae, d_in)

    def forward(self, x):
        feats = torch.relu(self.enc(x))
        return self.dec(feats), feats


class SAETrainer:
    def __init__(self, sae, cfg):
        self.cfg = cfg
        self.sae = sae.to(cfg.device)
        self.optimizer = torch.optim.Adam(self.sae.parameters(), lr=cfg.lr)
        self.n_training_steps = 0
        self.act_freq_scores = torch.zeros(cfg.d_sae, device=cfg.device)
        self.n_forward_passes_since_fired = torch.zeros(cfg.d_sae, device=cfg.device)

    def _train_step(self, batch):
        batch = batch.to(self.cfg.device)
        recon, feats = self.sae(batch)
        loss = (recon - batch).pow(2).mean() + 1e-3 * feats.abs().sum(-1).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        fired = (feats > 0).float()
        self.act_freq_scores += fired.sum(0)
        self.n_forward_passes_since_fired += 1
        self.n_forward_passes_since_fired[fired.sum(0) > 0] = 0
        self.n_training_steps += 1
        return loss

    def save_trainer_state(self, checkpoint_path: Path):
        torch.save(
            {
                "n_training_steps": self.n_training_steps,
                "act_freq_scores": self.act_freq_scores,
                "n_forward_passes_since_fired": self.n_forward_passes_since_fired,
                "optimizer": self.optimizer.state_dict(),
            },
            checkpoint_path / TRAINER_STATE_FILENAME,
        )

    def load_trainer_state(self, checkpoint_path: Path):
        state_dict = torch.load(checkpoint_path / TRAINER_STATE_FILENAME)  # <- bug
        self.n_training_steps = state_dict["n_training_steps"]
        self.act_freq_scores = state_dict["act_freq_scores"]
        self.n_forward_passes_since_fired = state_dict["n_forward_passes_since_fired"]
        self.optimizer.load_state_dict(state_dict["optimizer"])


def resume(checkpoint_dir, activations, cfg):
    sae = SparseAutoencoder(activations.shape[-1], cfg.d_sae)
    trainer = SAETrainer(sae, cfg)
    trainer.load_trainer_state(Path(checkpoint_dir))
    for batch in activations.split(64):
        trainer._train_step(batch)
    return trainer
