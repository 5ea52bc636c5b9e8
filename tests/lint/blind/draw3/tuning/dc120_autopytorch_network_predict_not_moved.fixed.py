# devcheck bug corpus: DC120
# From: https://github.com/automl/Auto-PyTorch/pull/156
# Fixed: _predict moves the network to the component's device first; the
# outputs are detached and copied to the host after the final activation.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List, Optional

import torch
import torch.nn as nn


class NetworkComponent:
    def __init__(self, network_builder, device: Optional[torch.device] = None, final_activation=None):
        self.network_builder = network_builder
        self.device = device or torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.final_activation = final_activation
        self.network: Optional[nn.Module] = None
        self.network_snapshots: List[nn.Module] = []

    def fit(self, input_shape, output_shape):
        self.network = self.network_builder(input_shape, output_shape)
        return self

    def to(self, device: Optional[torch.device] = None) -> None:
        self.network = self.network.to(device if device is not None else self.device)

    def predict(self, loader: torch.utils.data.DataLoader):
        if len(self.network_snapshots) == 0:
            return self._predict(network=self.network, loader=loader).cpu().numpy()
        preds = [self._predict(network, loader) for network in self.network_snapshots]
        return torch.stack(preds).mean(dim=0).cpu().numpy()

    def _predict(self, network: nn.Module, loader: torch.utils.data.DataLoader) -> torch.Tensor:
        network.to(self.device)  # <- fixed
        network.float()
        network.eval()
        Y_batch_preds = list()
        for i, (X_batch, Y_batch) in enumerate(loader):
            X_batch = X_batch.float().to(self.device)
            Y_batch_pred = network(X_batch)  # <- fixed
            if self.final_activation is not None:
                Y_batch_pred = self.final_activation(Y_batch_pred)
            Y_batch_preds.append(Y_batch_pred.detach().cpu())  # <- fixed
        return torch.cat(Y_batch_preds, 0)


def mlp_builder(input_shape, output_shape):
    return nn.Sequential(nn.Linear(input_shape[0], 64), nn.ReLU(), nn.Linear(64, output_shape[0]))
