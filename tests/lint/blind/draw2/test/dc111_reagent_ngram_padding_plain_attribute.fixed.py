# devcheck bug corpus: DC111
# From: https://github.com/facebookresearch/ReAgent/pull/485
# Fixed: forward moves the padding to the input's device before the n-grams
# are built (`self.ngram_padding.to(input.device)`); the attribute itself is
# still made in __init__ as before.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def ngram(input, context_size, padding):
    seq_len, batch_size, _ = input.shape
    shifted = []
    for i in range(context_size):
        offset = i - context_size // 2
        if offset < 0:
            pad = padding.tile((-offset, batch_size, 1))
            shifted.append(torch.cat((pad, input.narrow(0, 0, seq_len + offset)), dim=0))
        elif offset > 0:
            pad = padding.tile((offset, batch_size, 1))
            shifted.append(torch.cat((input.narrow(0, offset, seq_len - offset), pad), dim=0))
        else:
            shifted.append(input)
    return torch.cat(shifted, dim=-1)


class NGramRewardNet(nn.Module):
    def __init__(self, state_dim, action_dim, hidden, context_size):
        super().__init__()
        assert context_size % 2 == 1
        self.context_size = context_size
        self.ngram_padding = torch.zeros(1, 1, state_dim + action_dim)  # <- fixed
        self.fc = nn.Sequential(
            nn.Linear((state_dim + action_dim) * context_size, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, state, action):
        input = torch.cat((state, action), dim=-1)
        ngram_input = ngram(input, self.context_size, self.ngram_padding.to(input.device))  # <- fixed
        return self.fc(ngram_input).transpose(0, 1).squeeze(2)


def train_step(net, optimizer, batch, device):
    state = batch["state"].to(device)
    action = batch["action"].to(device)
    reward = batch["reward"].to(device)
    pred = net(state, action).sum(1)
    loss = nn.functional.mse_loss(pred, reward)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.detach()


def main(batches):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = NGramRewardNet(8, 2, 64, context_size=3).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    for batch in batches:
        train_step(net, optimizer, batch, device)
