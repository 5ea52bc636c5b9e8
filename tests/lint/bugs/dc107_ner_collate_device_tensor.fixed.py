# devcheck bug corpus: DC107
# From: https://github.com/Tongjilibo/bert4torch/issues/149
# A NER example builds its padded batches with torch.tensor(..., device=device)
# inside collate_fn; with num_workers > 0 the DataLoader fails.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"


def sequence_padding(seqs):
    width = max(len(s) for s in seqs)
    return np.array([list(s) + [0] * (width - len(s)) for s in seqs])


def collate_fn(batch):
    token_ids = [sample[0] for sample in batch]
    labels = [sample[1] for sample in batch]
    token_ids = torch.tensor(sequence_padding(token_ids), dtype=torch.long)  # <- fixed
    labels = torch.tensor(sequence_padding(labels), dtype=torch.long)  # <- fixed
    return token_ids, labels


train_dataloader = DataLoader(train_data, batch_size=16, shuffle=True, num_workers=2, collate_fn=collate_fn)
