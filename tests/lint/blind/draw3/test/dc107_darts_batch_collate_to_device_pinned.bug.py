# devcheck bug corpus: DC107
# From: https://github.com/unit8co/darts/issues/436
# Darts' torch forecasting models stacked each batch's NumPy samples in the
# DataLoader's collate_fn and moved them there to the model's device. The
# training loader also asked for pin_memory=True, and on a GPU the loader
# then tried to pin the CUDA tensors the collate_fn returned: "cannot pin
# 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned". The fix
# (pull request #439) keeps the collate_fn on the host and moves each batch in
# the training and prediction loops.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader


class TorchForecastingModel:
    def __init__(self, model, batch_size=32, torch_device_str=None):
        if torch_device_str is None:
            self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        else:
            self.device = torch.device(torch_device_str)
        self.model = model.to(self.device)
        self.batch_size = batch_size
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.criterion = torch.nn.MSELoss()

    def _batch_collate_fn(self, batch: List[Tuple]) -> Tuple:
        aggregated = []
        first_sample = batch[0]
        for i in range(len(first_sample)):
            elem = first_sample[i]
            if isinstance(elem, np.ndarray):
                aggregated.append(
                    torch.from_numpy(np.stack([sample[i] for sample in batch], axis=0)).to(self.device)  # <- bug
                )
            elif elem is None:
                aggregated.append(None)
        return tuple(aggregated)

    def fit_from_dataset(self, train_dataset, epochs=10):
        train_loader = DataLoader(train_dataset, batch_size=self.batch_size, shuffle=True,
                                  num_workers=0, pin_memory=True, drop_last=False,
                                  collate_fn=self._batch_collate_fn)
        self._train(train_loader, epochs)

    def _train(self, train_loader, epochs):
        for _ in range(epochs):
            total_loss = 0.0
            for train_batch in train_loader:
                self.model.train()
                output = self.model(train_batch[0].float())
                target = train_batch[-1].float()
                loss = self.criterion(output, target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total_loss += loss.item()
