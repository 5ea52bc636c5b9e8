# devcheck bug corpus: DC101
# From: https://github.com/FenTechSolutions/CausalDiscoveryToolbox/issues/36
# From: https://github.com/FenTechSolutions/CausalDiscoveryToolbox/commit/0a18ce40c3e65cb8c191bfdd8134a8b4f386e0bc
# Training the Neural Causation Coefficient on a GPU: the pair labels are moved
# to the device, but each epoch's batches pick their labels with index_select
# and an index built with th.LongTensor on the host.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import pandas as pd
import torch as th
from torch.utils import data


class Dataset(data.Dataset):
    def __init__(self, dataset, labels, batch_size=-1):
        self.labels = labels
        self.dataset = dataset
        self.batch_size = batch_size if batch_size != 1 else len(dataset)
        self.nsets = self.__len__() // self.batch_size

    def shuffle(self):
        order = th.randperm(len(self.dataset))
        self.dataset = [self.dataset[i] for i in order]
        self.labels = self.labels[order]
        self.set = [([self.dataset[i + j * self.batch_size]
                      for i in range(self.batch_size)],
                     th.index_select(self.labels, 0, th.LongTensor([i + j * self.batch_size  # <- bug
                                                                    for i in range(self.batch_size)])))
                    for j in range(self.nsets)]

    def __iter__(self):
        self.shuffle()
        self.count = 0
        return self

    def __next__(self):
        if self.count < self.nsets:
            self.count += 1
            return self.set[self.count - 1]
        raise StopIteration

    def __len__(self):
        return len(self.dataset)


class NCC_model(th.nn.Module):
    def __init__(self, n_hiddens=20, kernel_size=3):
        super(NCC_model, self).__init__()
        self.conv = th.nn.Sequential(th.nn.Conv1d(2, n_hiddens, kernel_size),
                                     th.nn.ReLU(),
                                     th.nn.Conv1d(n_hiddens, n_hiddens, kernel_size),
                                     th.nn.ReLU())
        self.dense = th.nn.Sequential(th.nn.Linear(n_hiddens, n_hiddens),
                                      th.nn.ReLU(),
                                      th.nn.Linear(n_hiddens, 1))

    def forward(self, x):
        features = self.conv(x).mean(dim=2)
        return self.dense(features)


class NCC:
    def __init__(self):
        self.model = None

    def fit(self, x_tr, y_tr, epochs=5, batch_size=4, learning_rate=0.01,
            device="cpu"):
        if batch_size > len(x_tr):
            batch_size = len(x_tr)
        self.model = NCC_model()
        opt = th.optim.Adam(self.model.parameters(), lr=learning_rate)
        criterion = th.nn.BCEWithLogitsLoss()
        y = y_tr.values if isinstance(y_tr, pd.DataFrame) else y_tr
        y = th.Tensor(y) / 2 + .5
        self.model = self.model.to(device)
        y = y.to(device)
        dataset = [th.Tensor(np.vstack([row['A'], row['B']])).t().to(device)
                   for (idx, row) in x_tr.iterrows()]
        da = Dataset(dataset, y, batch_size)
        for epoch in range(epochs):
            for batch, label in da:
                opt.zero_grad()
                out = th.stack([self.model(m.t().unsqueeze(0)) for m in batch], 0).squeeze(2)
                loss = criterion(out, label)
                loss.backward()
                opt.step()
        return self


if __name__ == "__main__":
    pairs = pd.DataFrame({"A": [np.random.rand(50) for _ in range(16)],
                          "B": [np.random.rand(50) for _ in range(16)]})
    labels = np.random.choice([-1.0, 1.0], size=(16, 1))
    NCC().fit(pairs, labels, device="cuda:0" if th.cuda.is_available() else "cpu")
