# devcheck bug corpus: DC113
# From: https://github.com/KDD-OpenSource/DeepADoTS/issues/193
# DeepADoTS's autoencoder detector takes a `gpu` index, moves its network and
# each batch there, and in `predict` collects the reconstruction error of
# every window with `.data.numpy()`. With gpu=0 the error is a CUDA tensor
# and `predict` failed with "can't convert CUDA tensor to numpy"; with
# gpu=None it worked. The error must be copied to the host first.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class AutoEncoderModule(nn.Module):
    def __init__(self, n_features, hidden_size):
        super().__init__()
        self.encoder = nn.Linear(n_features, hidden_size)
        self.decoder = nn.Linear(hidden_size, n_features)

    def forward(self, ts_batch):
        return self.decoder(torch.tanh(self.encoder(ts_batch)))


class AutoEncoder:
    def __init__(self, hidden_size=5, num_epochs=10, gpu=None):
        self.hidden_size = hidden_size
        self.num_epochs = num_epochs
        self.device = torch.device(f"cuda:{gpu}" if gpu is not None else "cpu")
        self.aed = None

    def fit(self, X):
        data = torch.as_tensor(np.asarray(X, dtype=np.float32))
        loader = DataLoader(data, batch_size=20, shuffle=True)
        self.aed = AutoEncoderModule(data.shape[1], self.hidden_size).to(self.device)
        optimizer = torch.optim.Adam(self.aed.parameters(), lr=1e-3)
        for _ in range(self.num_epochs):
            for ts_batch in loader:
                ts_batch = ts_batch.to(self.device)
                loss = nn.functional.mse_loss(self.aed(ts_batch), ts_batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

    def predict(self, X):
        data = torch.as_tensor(np.asarray(X, dtype=np.float32))
        loader = DataLoader(data, batch_size=20, shuffle=False)
        self.aed.eval()
        errors = []
        for ts_batch in loader:
            ts_batch = ts_batch.to(self.device)
            output = self.aed(ts_batch)
            error = nn.L1Loss(reduction="none")(output, ts_batch)
            errors.append(error.mean(dim=1).data.numpy())  # <- bug
        return np.concatenate(errors)


def main(x_train, x_test):
    model = AutoEncoder(num_epochs=40, hidden_size=10, gpu=0)
    model.fit(x_train)
    print(model.predict(x_test))
