# devcheck bug corpus: DC107
# From: https://github.com/unit8co/darts/issues/436
# Fixed (pull request #439): the collate_fn leaves the stacked tensors on the
# host, and the training loop moves each batch to the model's device.
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
                    torch.from_numpy(np.stack([sample[i] for sample in batch], axis=0))  # <- fixed
                )
            elif elem is None:
                aggregated.append(None)
        return tuple(aggregated)

    def fit_from_dataset(self, train_dataset, epochs=10):
        train_loader = DataLoader(train_dataset, batch_size=self.batch_size, shuffle=True,
                                  num_workers=0, pin_memory=True, drop_last=False,
                                  collate_fn=self._batch_collate_fn)
        self._train(train_loader, epochs)

    def _batch_to_device(self, batch):  # <- fixed
        return tuple(e.to(self.device) if isinstance(e, torch.Tensor) else e for e in batch)  # <- fixed

    def _train(self, train_loader, epochs):
        for _ in range(epochs):
            total_loss = 0.0
            for train_batch in train_loader:
                self.model.train()
                train_batch = self._batch_to_device(train_batch)  # <- fixed
                output = self.model(train_batch[0].float())
                target = train_batch[-1].float()
                loss = self.criterion(output, target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total_loss += loss.item()
