# devcheck bug corpus: DC122
# From: https://github.com/allenai/allennlp/issues/205
# From: https://github.com/allenai/allennlp/commit/c9b52613cc3c5ab933bedddef6d63d06380e41b9
# train_model() builds the optimizer from the config before the Trainer moves
# the model with model.cuda(cuda_device); an optimizer that makes its state at
# construction (Adagrad's sums) keeps it on the CPU and its first step fails
# beside the CUDA gradients.
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
    def from_params(cls, model, optimizer, batches, params: Dict):
        cuda_device = params.pop("cuda_device", -1)
        num_epochs = params.pop("num_epochs", 20)
        return cls(model, optimizer, batches, num_epochs=num_epochs, cuda_device=cuda_device)


def train_model(params: Dict, batches):
    model = nn.Sequential(nn.Embedding(1000, 64), nn.Flatten(), nn.Linear(64 * 20, 5))
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = optimizer_from_params(parameters, params.pop("optimizer"))  # <- bug
    trainer = Trainer.from_params(model, optimizer, batches, params.pop("trainer"))
    trainer.train()
    return model


if __name__ == "__main__":
    config = {"optimizer": {"type": "adagrad", "lr": 0.05}, "trainer": {"cuda_device": 0, "num_epochs": 2}}
    data = [(torch.randint(0, 1000, (8, 20)), torch.randint(0, 5, (8,)))]
    train_model(config, data)
