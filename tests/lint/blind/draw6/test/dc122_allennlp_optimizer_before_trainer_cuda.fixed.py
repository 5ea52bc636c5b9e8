# devcheck bug corpus: DC122
# From: https://github.com/allenai/allennlp/issues/205
# From: https://github.com/allenai/allennlp/commit/c9b52613cc3c5ab933bedddef6d63d06380e41b9
# The fix (commit c9b5261, pull request 237) moves the optimizer's creation
# into Trainer.from_params, after model.cuda(cuda_device), so the optimizer is
# built from parameters already on the GPU (its configuration moves under
# the trainer's).
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, List

import torch
import torch.nn as nn

OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adagrad": torch.optim.Adagrad,
    "sgd": torch.optim.SGD,
}


def optimizer_from_params(parameters: List[nn.Parameter], params: Dict):
    params = dict(params)
    name = params.pop("type", "adam")
    return OPTIMIZERS[name](parameters, **params)


class Trainer:
    def __init__(self, model, optimizer, batches, num_epochs=20, cuda_device=-1):
        self._model = model
        self._optimizer = optimizer
        self._batches = batches
        self._num_epochs = num_epochs
        self._cuda_device = cuda_device
        if self._cuda_device >= 0:
            self._model = self._model.cuda(self._cuda_device)

    def train(self):
        for _ in range(self._num_epochs):
            for inputs, labels in self._batches:
                if self._cuda_device >= 0:
                    inputs, labels = inputs.cuda(self._cuda_device), labels.cuda(self._cuda_device)
                self._optimizer.zero_grad()
                loss = nn.functional.cross_entropy(self._model(inputs), labels)
                loss.backward()
                self._optimizer.step()

    @classmethod
    def from_params(cls, model, batches, params: Dict):  # <- fixed
        cuda_device = params.pop("cuda_device", -1)
        num_epochs = params.pop("num_epochs", 20)
        if cuda_device >= 0:  # <- fixed
            model = model.cuda(cuda_device)  # <- fixed
        parameters = [p for p in model.parameters() if p.requires_grad]  # <- fixed
        optimizer = optimizer_from_params(parameters, params.pop("optimizer"))  # <- fixed
        return cls(model, optimizer, batches, num_epochs=num_epochs, cuda_device=cuda_device)


def train_model(params: Dict, batches):
    model = nn.Sequential(nn.Embedding(1000, 64), nn.Flatten(), nn.Linear(64 * 20, 5))
    trainer = Trainer.from_params(model, batches, params.pop("trainer"))  # <- fixed
    trainer.train()
    return model


if __name__ == "__main__":
    config = {"trainer": {"optimizer": {"type": "adagrad", "lr": 0.05}, "cuda_device": 0, "num_epochs": 2}}  # <- fixed
    data = [(torch.randint(0, 1000, (8, 20)), torch.randint(0, 5, (8,)))]
    train_model(config, data)
