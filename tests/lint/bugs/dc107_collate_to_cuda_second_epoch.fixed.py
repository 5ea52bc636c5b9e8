# devcheck bug corpus: DC107
# From: https://github.com/pytorch/pytorch/issues/17359
# A custom collate_fn moves each batch to CUDA; with num_workers=2 the loader
# fails with "CUDA error: initialization error".
# Written for devcheck's tests after the thread; not the project's code.
from collections import defaultdict
import torch
import torch.utils.data


def collate_fn(samples):
    batch = defaultdict(list)
    for key in samples[0].keys():
        batch[key] = torch.tensor([s[key] for s in samples]).long()  # <- fixed
    return batch


def make_loader(dataset):
    return torch.utils.data.DataLoader(dataset, 4, num_workers=2, collate_fn=collate_fn)
