# devcheck bug corpus: DC107
# From: https://github.com/DavidWBressler/GCNN/issues/2
# Fixed (as the reporter did): both DataLoaders are made with
# pin_memory=False; the collate function still returns CUDA tensors.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as data_utils
from torch.utils.data.dataset import Dataset
from fastai.text import *  # noqa: F401,F403  (fastai v1: DataLoader pins memory by default)


class LMDatasetGCNN(Dataset):
    def __init__(self, tokens):
        self.tokens = tokens

    def __getitem__(self, index):
        return torch.LongTensor(self.tokens[index]), torch.FloatTensor([1])

    def __len__(self):
        return len(self.tokens)


def pad_collate_gcnn(samples, pad_idx=1):
    max_len = max(len(s[0]) for s in samples)
    res = torch.zeros(max_len, len(samples)).long() + pad_idx
    for i, s in enumerate(samples):
        res[:len(s[0]), i] = torch.LongTensor(s[0])
    labels = torch.FloatTensor(np.array([s[1].numpy() for s in samples])).squeeze()
    return res.cuda(), labels.cuda()  # <- fixed


class GCNNTrainer:
    def __init__(self, trn_dl, val_dl, module):
        self.trn_dl, self.val_dl = trn_dl, val_dl
        self.model = module.cuda()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def model_fit(self, epochs=1):
        for _ in range(epochs):
            self.model.train()
            for x, y in self.trn_dl:
                loss = self.model(x, y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()


def build_loaders(trn_tokens, val_tokens, bs, trn_samp, val_samp):
    traindataset, validdataset = LMDatasetGCNN(trn_tokens), LMDatasetGCNN(val_tokens)
    train_loader = data_utils.DataLoader(traindataset, batch_size=bs, collate_fn=pad_collate_gcnn, pin_memory=False, sampler=trn_samp)  # <- fixed
    val_loader = data_utils.DataLoader(validdataset, batch_size=bs, collate_fn=pad_collate_gcnn, pin_memory=False, sampler=val_samp)  # <- fixed
    return train_loader, val_loader
