# kind: dataloader-worker-cuda
# source: https://github.com/Tongjilibo/bert4torch/issues/149
# source: https://github.com/meta-pytorch/data/issues/966
# fix: build the batch tensors on the CPU in collate_fn and move them to the device in the training loop
# expect: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
# sanitizer: none
# start-method: fork
"""Sequence labelling with a collate_fn that pads the token ids and labels
and builds the batch with torch.tensor(..., device=device), read with
num_workers > 0."""
import random

import torch
from torch import nn
from torch.utils.data import DataLoader

random.seed(0)
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
maxlen = 8
data = [[random.randint(1, 20) for _ in range(random.randint(3, maxlen))] for _ in range(24)]


def sequence_padding(seqs, length=maxlen):
    return [s + [0] * (length - len(s)) for s in seqs]


def collate_fn(batch):
    batch_token_ids = [d for d in batch]
    batch_labels = [[t % 3 for t in d] for d in batch]
    batch_token_ids = torch.tensor(sequence_padding(batch_token_ids), dtype=torch.long, device=device)  # BUG:op
    batch_labels = torch.tensor(sequence_padding(batch_labels), dtype=torch.long, device=device)
    return batch_token_ids, batch_labels


model = nn.Sequential(nn.Embedding(21, 16), nn.Linear(16, 3)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
train_dataloader = DataLoader(data, batch_size=8, shuffle=False, collate_fn=collate_fn, num_workers=2)
for epoch in range(2):
    for token_ids, labels in train_dataloader:
        loss = nn.functional.cross_entropy(model(token_ids).reshape(-1, 3), labels.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("loss", round(loss.item(), 4))
