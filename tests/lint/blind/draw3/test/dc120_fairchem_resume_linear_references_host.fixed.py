# devcheck bug corpus: DC120
# From: https://github.com/facebookresearch/fairchem/pull/813
# Fixed: map_location is computed for every load, and the rebuilt
# LinearReferences module is moved there (`.to(map_location)`), the trainer's
# device on a GPU run.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
from torch import nn


class LinearReferences(nn.Module):
    def __init__(self, element_references=None, max_num_elements=118):
        super().__init__()
        self.register_buffer(
            "element_references",
            element_references if element_references is not None else torch.zeros(max_num_elements + 1),
        )

    def _apply_refs(self, target, batch, sign):
        indices = batch.atomic_numbers.to(dtype=torch.int, device=self.element_references.device)
        elemrefs = self.element_references[indices].to(dtype=target.dtype)
        return target.index_add(0, batch.batch, elemrefs, alpha=sign)

    def dereference(self, target, batch):
        return self._apply_refs(target, batch, -1)

    def forward(self, target, batch):
        return self._apply_refs(target, batch, 1)


class Trainer:
    def __init__(self, model, cpu=False):
        self.cpu = cpu
        self.device = torch.device("cpu" if cpu or not torch.cuda.is_available() else "cuda")
        self.model = model.to(self.device)
        self.elementrefs = {}
        self.epoch = 0

    def load_checkpoint(self, checkpoint_path, checkpoint=None):
        map_location = torch.device("cpu") if self.cpu else self.device  # <- fixed
        if checkpoint is None:
            if not os.path.isfile(checkpoint_path):
                raise FileNotFoundError(checkpoint_path)
            checkpoint = torch.load(checkpoint_path, map_location=map_location)
        self.epoch = checkpoint.get("epoch", 0)
        self.model.load_state_dict(checkpoint["state_dict"])
        for key, state_dict in checkpoint.get("elementrefs", {}).items():
            elementrefs = LinearReferences(max_num_elements=len(state_dict["element_references"]) - 1).to(map_location)  # <- fixed
            mkeys = elementrefs.load_state_dict(state_dict)
            self.elementrefs[key] = elementrefs
            assert len(mkeys.missing_keys) == 0

    def _compute_loss(self, out, batch):
        target = batch.energy
        if "energy" in self.elementrefs:
            target = self.elementrefs["energy"].dereference(target, batch)
        return torch.nn.functional.l1_loss(out["energy"], target)

    def train_step(self, batch, optimizer):
        batch = batch.to(self.device)
        out = {"energy": self.model(batch.pos).sum(-1)}
        loss = self._compute_loss(out, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.detach()
