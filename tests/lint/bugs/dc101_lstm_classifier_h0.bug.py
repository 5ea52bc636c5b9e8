# devcheck bug corpus: DC101
# From: https://github.com/pytorch/pytorch/issues/52186
# An LSTM regression model on Colab: model and batches were moved to the GPU,
# but the forward made h0 and c0 with torch.zeros: "Input and hidden tensors
# are not at the same device, found input tensor at cuda:0 and hidden tensor at
# cpu".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class LSTMModel(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, 1)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)  # <- bug
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)  # <- bug
        out, _ = self.lstm(x, (h0, c0))
        return self.fc(out[:, -1, :])


def train(dataset, epochs):
    model = LSTMModel(8, 32, 2).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):
        for data, label in DataLoader(dataset, batch_size=64, shuffle=False):
            data, label = data.to(device), label.to(device)
            loss = nn.functional.mse_loss(model(data), label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
