# devcheck bug corpus: DC114
# From: https://github.com/meta-pytorch/torchtune/pull/522
# Profiling showed a 40-50 ms cudaStreamSynchronize on every step from
# loss.item() in the progress bar update; the PR moves the .item() into the
# log_every_n_steps block.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class FinetuneRecipe:
    def __init__(self, model, optimizer, loss_fn, dataloader, device, log_every_n_steps):
        self._model = model
        self._optimizer = optimizer
        self._loss_fn = loss_fn
        self._dataloader = dataloader
        self._device = device
        self._log_every_n_steps = log_every_n_steps

    def train(self, pbar, log):
        for idx, batch in enumerate(self._dataloader):
            input_ids, labels = batch
            input_ids = input_ids.to(self._device)
            labels = labels.to(self._device)
            logits = self._model(input_ids)
            loss = self._loss_fn(logits.transpose(1, 2), labels)
            pbar.set_description(f"{idx + 1}|Loss: {loss.item()}")  # <- bug
            if idx % self._log_every_n_steps == 0:
                log({"loss": loss.item()})
            loss.backward()
            self._optimizer.step()
            self._optimizer.zero_grad(set_to_none=True)
