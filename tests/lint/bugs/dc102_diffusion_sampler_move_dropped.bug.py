# devcheck bug corpus: DC102
# From: https://github.com/huggingface/accelerate/issues/2251
# The timesteps and weights a schedule sampler returns were "moved" with
# t.to(batch.device) and weights.to(batch.device) as statements; the copies
# were dropped and the CPU tensors used. The maintainer: .to is not in place,
# write t = t.to(...).
# Written for devcheck's tests after the thread; not the project's code.
import torch


class TrainLoop:
    def __init__(self, model, diffusion, schedule_sampler):
        self.model = model
        self.diffusion = diffusion
        self.schedule_sampler = schedule_sampler

    def forward_backward(self, batch):
        t, weights = self.schedule_sampler.sample(batch.shape[0])
        t.to(batch.device)  # <- bug
        weights.to(batch.device)  # <- bug
        losses = self.diffusion.training_losses(self.model, batch, t)
        loss = (losses["loss"] * weights).mean()
        loss.backward()
