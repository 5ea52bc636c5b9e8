# devcheck bug corpus: DC103
# From: https://github.com/NatLabRockies/Wattile/issues/100
# Fixed (PR #101): the training and validation tensors are moved to the
# device where they are made from NumPy, and run_training moves the model
# there before building the optimizer.
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
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <- fixed
    train_feat_tensor = torch.from_numpy(X_train).float().to(device)  # <- fixed
    train_target_tensor = torch.from_numpy(y_train).float().to(device)  # <- fixed
    train_loader = DataLoader(TensorDataset(train_feat_tensor, train_target_tensor), batch_size=train_batch_size, shuffle=True)
    val_feat_tensor = torch.from_numpy(X_val).float().to(device)  # <- fixed
    val_target_tensor = torch.from_numpy(y_val).float().to(device)  # <- fixed
    val_loader = DataLoader(TensorDataset(val_feat_tensor, val_target_tensor), batch_size=val_batch_size, shuffle=False)
    return train_loader, val_loader


def run_training(train_loader, configs, num_epochs, seq_dim):
    input_dim = configs["input_dim"]
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <- fixed
    model = init_model(configs)
    model.to(device)  # <- fixed
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
