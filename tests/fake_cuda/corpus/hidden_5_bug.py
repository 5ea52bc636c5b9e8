# kind: hidden-state
# source: https://github.com/talipucar/CPC/issues/1
# fix: make the GRU's initial hidden state on the encoder's device before the forward pass
# expect: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu
# message-1.13: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu
# message-2.x: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu
# sanitizer: mismatch
"""Contrastive predictive coding: an encoder maps windows of a signal to
latents, a GRU summarises them, and init_hidden makes the GRU's first state."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class CPC(nn.Module):
    def __init__(self, window=8, latent=16, context=12, timesteps=2):
        super().__init__()
        self.context, self.timesteps = context, timesteps
        self.encoder = nn.Sequential(nn.Linear(window, latent), nn.ReLU(), nn.Linear(latent, latent))
        self.gru = nn.GRU(latent, context, batch_first=True)
        self.predict = nn.ModuleList(nn.Linear(context, latent) for _ in range(timesteps))

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.context)  # BUG:stray

    def forward(self, windows, hidden):
        z = self.encoder(windows)
        prior = z[:, : -self.timesteps]
        output, hidden = self.gru(prior, hidden)  # BUG:op
        c = output[:, -1]
        nce = 0
        for k in range(self.timesteps):
            scores = self.predict[k](c) @ z[:, -self.timesteps + k].t()
            nce = nce + nn.functional.cross_entropy(scores, torch.arange(z.size(0), device=z.device))
        return nce / self.timesteps, hidden


signal = torch.randn(4, 10, 8)
model = CPC().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    hidden = model.init_hidden(signal.size(0))
    loss, hidden = model(signal.to(device), hidden)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("nce", round(loss.item(), 4))
