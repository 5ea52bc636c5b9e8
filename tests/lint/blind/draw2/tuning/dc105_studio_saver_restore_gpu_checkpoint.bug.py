# devcheck bug corpus: DC105
# From: https://github.com/studioml/studio/pull/251
# Studio's torch Saver saves the model's and the optimizer's state dicts to
# <model_dir>/checkpoint and restores them with torch.load(path). A
# checkpoint written by training on a GPU holds CUDA tensors, so restoring it
# on a CPU host failed while deserializing. The pull request adds an option
# to load the checkpoint remapped to the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.nn as nn


def load_checkpoint(model, optimizer, model_dir):
    path = os.path.join(model_dir, "checkpoint")
    if os.path.exists(path):
        print("Loading model from %s" % path)
        checkpoint = torch.load(path)  # <- bug
        old_state_dict = model.state_dict()
        for key in old_state_dict.keys():
            if key not in checkpoint["model"]:
                checkpoint["model"][key] = old_state_dict[key]
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        return checkpoint.get("step", 0)
    return 0


def save_checkpoint(model, optimizer, step, model_dir):
    if not os.path.exists(model_dir):
        os.makedirs(model_dir)
    path = os.path.join(model_dir, "checkpoint")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)


class Saver(object):
    def __init__(self, model, optimizer):
        self._model = model
        self._optimizer = optimizer

    def restore(self, model_dir):
        last_step = load_checkpoint(self._model, self._optimizer, model_dir)
        return last_step

    def save(self, model_dir, step):
        save_checkpoint(self._model, self._optimizer, step, model_dir)


def train(model_dir, batches):
    model = nn.Linear(32, 4)
    if torch.cuda.is_available():
        model.cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    saver = Saver(model, optimizer)
    step = saver.restore(model_dir)
    for x, y in batches:
        x, y = x.to(next(model.parameters()).device), y.to(next(model.parameters()).device)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
    saver.save(model_dir, step)
