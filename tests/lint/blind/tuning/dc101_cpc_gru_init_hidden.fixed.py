# devcheck bug corpus: DC101
# From: https://github.com/talipucar/CPC/issues/1
# A contrastive predictive coding model: fit() moved each batch to the GPU and
# called the model with a hidden state from init_hidden(), a method of the
# nn.Module that made it with torch.zeros: "Input and hidden tensors are not at
# the same device, found input tensor at cuda:0 and hidden tensor at cpu".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class CPC(nn.Module):
    def __init__(self, n_features, hidden):
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Linear(n_features, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.hidden, device=self.encoder.weight.device)  # <- fixed

    def forward(self, x, hidden):
        z = self.encoder(x)
        output, hidden = self.gru(z, hidden)
        return output, hidden


class Encoder:
    def __init__(self, options):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.cpc = CPC(options["n_features"], options["hidden"]).to(self.device)
        self.optimizer = torch.optim.Adam(self.cpc.parameters(), lr=1e-3)

    def fit(self, loader):
        for xbatch, _ in loader:
            xbatch = xbatch.to(self.device)
            hidden = self.cpc.init_hidden(xbatch.size(0))
            output, hidden = self.cpc(xbatch, hidden)
            loss = output.pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
