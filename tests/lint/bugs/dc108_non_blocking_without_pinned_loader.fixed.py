# devcheck bug corpus: DC108
# From: https://github.com/constantinpape/torch-em/pull/357
# From: https://github.com/constantinpape/torch-em/issues/356
# The trainer copies inputs with .to(device, non_blocking=True), but the
# loaders are made without pin_memory=True; the review: it only works from
# pinned memory, so pin by default.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader


def get_data_loader(dataset, batch_size, **loader_kwargs):
    return DataLoader(dataset, batch_size=batch_size, **loader_kwargs)


def train_epoch(model, dataset, optimizer, loss_fn, device):
    loader = DataLoader(dataset, batch_size=4, shuffle=True, pin_memory=True)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)  # <- fixed
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
