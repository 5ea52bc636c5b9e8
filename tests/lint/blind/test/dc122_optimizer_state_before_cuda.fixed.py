# devcheck bug corpus: DC122
# From: https://github.com/pytorch/pytorch/issues/2830
# Resuming training: the model and its Adam optimizer were made on the CPU, the
# optimizer's state was loaded from the checkpoint, and only then was the model
# moved with model.cuda(): the loaded state stayed on the CPU while the
# parameters went to the GPU, and optimizer.step() failed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def resume(path):
    model = nn.Linear(10, 2)
    optimizer = torch.optim.Adam(model.parameters())
    checkpoint = torch.load(path, map_location="cpu")
    model.load_state_dict(checkpoint["model"])
    model.cuda()  # <- fixed
    optimizer.load_state_dict(checkpoint["optimizer"])  # <- fixed
    return model, optimizer
