# devcheck bug corpus: DC111
# From: https://github.com/Lightning-AI/pytorch-lightning/issues/2984
# A LightningModule keeps one weighted CrossEntropyLoss per letter position in
# a plain list; their weight tensors stay on the CPU when the module moves to
# the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import pytorch_lightning as pl


class Transformer(pl.LightningModule):
    def __init__(self, letter_weights_per_position):
        super().__init__()
        self.criterions = torch.nn.ModuleList()  # <- fixed
        for weight in letter_weights_per_position:
            weight = torch.ones(94)
            self.criterions.append(torch.nn.CrossEntropyLoss(weight=weight))

    def validation_step(self, batch, batch_idx):
        images, targets, inputs = batch
        out = self(images, inputs)
        loss0 = self.criterions[0](out[:, 0, :], targets[:, 0])
        loss1 = self.criterions[1](out[:, 1, :], targets[:, 1])
        return {"val_loss": loss0 + loss1}
