# devcheck bug corpus: DC121
# From: https://github.com/rasbt/LLMs-from-scratch/issues/172
# Fine-tuning a GPT model as a classifier: the model was moved to the device and
# then its output head was replaced with a new torch.nn.Linear, made on the CPU:
# "Expected all tensors to be on the same device" in the training loop. The fix
# replaced the head before moving the model.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def prepare(model, emb_dim, num_classes, device):
    model.out_head = torch.nn.Linear(in_features=emb_dim, out_features=num_classes)  # <- fixed
    model.to(device)  # <- fixed
    return model


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, -1, :]
    return torch.nn.functional.cross_entropy(logits, target_batch)
