# devcheck bug corpus: DC111
# From: https://github.com/ludwig-ai/ludwig/pull/3420
# Fixed: the Predictor moves the wrapped metrics to its device
# (self.model.metrics_to_device(device)) when it is made, as the trainer did.
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass

import torch
import torch.nn as nn
import torchmetrics


def get_torch_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


@dataclass
class ModuleWrapper:
    module: torch.nn.Module


class BaseModel(nn.Module):
    def __init__(self, in_dim=16, out_dim=1):
        super().__init__()
        self.combiner = nn.Linear(in_dim, 32)
        self.decoder = nn.Linear(32, out_dim)
        self._eval_loss_metric = ModuleWrapper(torchmetrics.MeanMetric())  # <- fixed
        self._eval_additional_losses_metrics = ModuleWrapper(torchmetrics.MeanMetric())  # <- fixed

    def forward(self, inputs):
        return self.decoder(torch.relu(self.combiner(inputs)))

    def metrics_to_device(self, device):
        self._eval_loss_metric.module = self._eval_loss_metric.module.to(device)
        self._eval_additional_losses_metrics.module = self._eval_additional_losses_metrics.module.to(device)

    def update_metrics(self, targets, predictions):
        eval_loss = nn.functional.mse_loss(predictions, targets)
        self._eval_loss_metric.module.update(eval_loss)
        self._eval_additional_losses_metrics.module.update(torch.zeros_like(eval_loss))


class Trainer:
    def __init__(self, model):
        self.device = get_torch_device()
        self.model = model.to(self.device)
        self.model.metrics_to_device(self.device)


class Predictor:
    def __init__(self, model, batch_size=128):
        self._batch_size = batch_size
        device = get_torch_device()
        self.device = device
        self.model = model
        self.model.metrics_to_device(device)  # <- fixed

    def batch_evaluation(self, batches):
        self.model.eval()
        with torch.no_grad():
            for inputs, targets in batches:
                preds = self.model(inputs.to(self.device))
                self.model.update_metrics(targets.to(self.device), preds)
        return self.model._eval_loss_metric.module.compute().item()


def evaluate(model_path, batches):
    model = BaseModel()
    model.load_state_dict(torch.load(model_path, map_location="cpu"))
    model.to(get_torch_device())
    return Predictor(model).batch_evaluation(batches)
