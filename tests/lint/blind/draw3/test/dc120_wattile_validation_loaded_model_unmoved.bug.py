# devcheck bug corpus: DC120
# From: https://github.com/NatLabRockies/Wattile/issues/243
# A quantile LSTM for building-energy forecasts. Training built the model,
# moved it to the chosen device and trained it; validation of a saved run
# rebuilt the model with load_model (a new CPU model, the checkpoint's weights
# copied into it) and ran it over a loader whose tensors had been put on the
# device when the loader was made. On a GPU machine: "Input and parameter
# tensors are not at the same device, found input tensor at cuda:0 and
# parameter tensor at cpu". The issue asks for the training's move in
# run_validation too.
# Written for devcheck's tests after the thread; not the project's code.
import pathlib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class QuantileLSTM(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_layers, output_dim, device):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers, batch_first=True)
        self.head = nn.Linear(hidden_dim, output_dim)
        self.device_id = device

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_dim, device=self.device_id)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_dim, device=self.device_id)
        out, _ = self.lstm(x, (h0, c0))
        return torch.relu(self.head(out[:, -1, :]))


def init_model(configs):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return QuantileLSTM(configs["input_dim"], configs["hidden_size"], configs["num_layers"], len(configs["quantiles"]), device=device)


def load_model(configs):
    model = init_model(configs)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    checkpoint = torch.load(pathlib.Path(configs["exp_dir"]) / "torch_model", map_location=device)
    model.load_state_dict(checkpoint["model_state_dict"])
    return model, checkpoint["epoch_num"]


class ForecastRunner:
    def __init__(self, configs):
        self.configs = configs

    def to_data_loader(self, features, targets, batch_size):
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        features_tensor = torch.from_numpy(features.astype("float32")).to(device)
        target_tensor = torch.from_numpy(targets.astype("float32")).to(device)
        return DataLoader(TensorDataset(features_tensor, target_tensor), batch_size=batch_size)

    def test_processing(self, val_loader, model, seq_dim, input_dim):
        preds = []
        with torch.no_grad():
            model.eval()
            for feats, _ in val_loader:
                outputs = model(feats.view(-1, seq_dim, input_dim))
                preds.append(outputs.cpu().numpy())
        return np.concatenate(preds)

    def run_validation(self, val_loader):
        seq_dim = self.configs["lag_count"] + 1
        model, _ = load_model(self.configs)  # <- bug
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        return self.test_processing(val_loader, model, seq_dim, self.configs["input_dim"])
