# devcheck bug corpus: DC107
# From: https://github.com/DavidWBressler/GCNN/issues/2
# The gated-CNN language model's collate function padded each batch of token
# lists and returned it already moved with .cuda(). Its DataLoaders were made
# in a notebook that imports fastai (v1), which makes torch's DataLoader pin
# memory by default, so fitting the model failed in the loader's pinning
# step: "cannot pin 'torch.cuda.LongTensor' only dense CPU tensors can be
# pinned". The reporter fixed it by turning pinning off in both loaders.
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
    return res.cuda(), labels.cuda()  # <- bug


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
    train_loader = data_utils.DataLoader(traindataset, batch_size=bs, collate_fn=pad_collate_gcnn, sampler=trn_samp)
    val_loader = data_utils.DataLoader(validdataset, batch_size=bs, collate_fn=pad_collate_gcnn, sampler=val_samp)
    return train_loader, val_loader
