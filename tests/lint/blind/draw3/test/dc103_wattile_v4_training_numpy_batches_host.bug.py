# devcheck bug corpus: DC103
# From: https://github.com/NatLabRockies/Wattile/issues/100
# Training the v4 quantile LSTM on an HPC node with a GPU failed, while the
# same run on CPU-only nodes worked. The model was built with the chosen
# device (its forward makes the initial hidden and cell states there), but
# the training and validation tensors were made from the NumPy feature
# arrays with torch.from_numpy and only cast, left on the CPU, and the model
# itself was never moved: the LSTM got a CPU input beside its CUDA hidden
# state ("Input and hidden tensors are not at the same device"). The fix
# (PR #101, "adding GPU training capability") moves the tensors and the
# model to the device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class LSTMModel(nn.Module):
    def __init__(self, input_dim, hidden_dim, layer_dim, output_dim, device):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.layer_dim = layer_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, layer_dim, batch_first=True)
        self.fc1 = nn.Linear(hidden_dim, 100)
        self.fc2 = nn.Linear(100, output_dim)
        self.device_id = device

    def forward(self, x):
        h0 = torch.zeros(self.layer_dim, x.size(0), self.hidden_dim, device=self.device_id)
        c0 = torch.zeros(self.layer_dim, x.size(0), self.hidden_dim, device=self.device_id)
        out, _ = self.lstm(x, (h0, c0))
        return self.fc2(F.relu(self.fc1(out[:, -1, :])))


def init_model(configs):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return LSTMModel(configs["input_dim"], configs["hidden_nodes"], configs["layer_dim"], len(configs["qs"]), device)


def data_iterable_random(X_train, y_train, X_val, y_val, train_batch_size, val_batch_size):
    train_feat_tensor = torch.from_numpy(X_train).type(torch.FloatTensor)  # <- bug
    train_target_tensor = torch.from_numpy(y_train).type(torch.FloatTensor)  # <- bug
    train_loader = DataLoader(TensorDataset(train_feat_tensor, train_target_tensor), batch_size=train_batch_size, shuffle=True)
    val_feat_tensor = torch.from_numpy(X_val).type(torch.FloatTensor)  # <- bug
    val_target_tensor = torch.from_numpy(y_val).type(torch.FloatTensor)  # <- bug
    val_loader = DataLoader(TensorDataset(val_feat_tensor, val_target_tensor), batch_size=val_batch_size, shuffle=False)
    return train_loader, val_loader


def run_training(train_loader, configs, num_epochs, seq_dim):
    input_dim = configs["input_dim"]
    model = init_model(configs)
    optimizer = torch.optim.Adam(model.parameters(), lr=configs["lr"])
    for epoch in range(num_epochs):
        model.train()
        for feats, values in train_loader:
            features = feats.view(-1, seq_dim, input_dim)
            optimizer.zero_grad()
            outputs = model(features)
            resid = values - outputs
            loss = torch.mean(torch.max(0.5 * resid, -0.5 * resid))
            loss.backward()
            optimizer.step()
    return model


def main(train_arrays, val_arrays, configs):
    X_train, y_train = train_arrays
    X_val, y_val = val_arrays
    train_loader, _ = data_iterable_random(X_train, y_train, X_val, y_val, configs["train_batch_size"], configs["val_batch_size"])
    return run_training(train_loader, configs, configs["num_epochs"], configs["window"] + 1)
