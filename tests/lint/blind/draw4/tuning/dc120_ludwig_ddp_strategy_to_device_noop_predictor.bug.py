# devcheck bug corpus: DC120
# From: https://github.com/ludwig-ai/ludwig/pull/3566
# From: https://github.com/ludwig-ai/ludwig/commit/b802cddece92f44c2e4de905a88d33bd938531a7
# Ludwig's predictor asks the distributed strategy to put the model on the device
# before evaluating, and moves every batch to get_torch_device(); the DDP strategy's
# to_device returned the model unchanged, assuming DistributedDataParallel had already
# moved it, but a model that was never wrapped (evaluation after training, or on one
# worker) stays on the CPU and meets the CUDA batches.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Optional

import torch
import torch.nn as nn


def get_torch_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class BaseModel(nn.Module):
    def __init__(self, in_features=16, out_features=3):
        super().__init__()
        self.combiner = nn.Linear(in_features, 64)
        self.decoder = nn.Linear(64, out_features)

    def forward(self, inputs):
        return self.decoder(torch.relu(self.combiner(inputs)))

    def to_device(self, device):
        return self.to(device)


class DDPStrategy:
    def to_device(self, model: nn.Module, device: Optional[torch.device] = None) -> nn.Module:
        return model  # <- bug


class Predictor:
    def __init__(self, dist_model, batch_size=128, distributed=None):
        self._batch_size = batch_size
        self._distributed = distributed
        self.device = get_torch_device()
        self.dist_model = dist_model

    def batch_evaluation(self, batches):
        self.dist_model = self._distributed.to_device(self.dist_model)
        self.dist_model.eval()
        correct, total = 0, 0
        with torch.no_grad():
            for inputs, targets in batches:
                inputs, targets = inputs.to(self.device), targets.to(self.device)
                preds = self.dist_model(inputs).argmax(-1)  # <- bug
                correct += (preds == targets).sum().item()
                total += targets.numel()
        return correct / max(total, 1)


if __name__ == "__main__":
    model = BaseModel()
    predictor = Predictor(model, distributed=DDPStrategy())
    data = [(torch.randn(128, 16), torch.randint(0, 3, (128,))) for _ in range(4)]
    print(predictor.batch_evaluation(data))
