# devcheck bug corpus: DC120
# From: https://github.com/pykt-team/pykt-toolkit/pull/222
# Training ATDKT on a GPU failed with a device mismatch in its interaction
# embedding. The training step moved copies of the batch's sequences to the
# device for the loss, but handed the batch dictionary itself, still on the
# CPU, to the model, whose forward built the interaction ids from it and
# looked them up in an embedding on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torch.nn import Embedding, LSTM, Linear, Dropout
from torch.nn.functional import binary_cross_entropy, one_hot

device = "cpu" if not torch.cuda.is_available() else "cuda"


class ATDKT(nn.Module):
    def __init__(self, num_c, emb_size, dropout=0.1):
        super().__init__()
        self.model_name = "atdkt"
        self.num_c = num_c
        self.interaction_emb = Embedding(num_c * 2, emb_size)
        self.lstm_layer = LSTM(emb_size, emb_size, batch_first=True)
        self.dropout_layer = Dropout(dropout)
        self.out_layer = Linear(emb_size, num_c)

    def forward(self, dcur, train=False):
        c, r = dcur["cseqs"].long(), dcur["rseqs"].long()
        x = c + self.num_c * r
        xemb = self.interaction_emb(x)  # <- bug
        h, _ = self.lstm_layer(xemb)
        h = self.dropout_layer(h)
        return torch.sigmoid(self.out_layer(h))


def model_forward(model, dcur):
    cshft = dcur["shft_cseqs"].to(device)
    rshft = dcur["shft_rseqs"].to(device)
    sm = dcur["smasks"].to(device)
    y = model(dcur, train=True)  # <- bug
    y = (y * one_hot(cshft.long(), model.num_c)).sum(-1)
    pred = torch.masked_select(y, sm)
    true = torch.masked_select(rshft, sm)
    return binary_cross_entropy(pred.double(), true.double())


def train_model(model, train_loader, opt, num_epochs):
    for _ in range(num_epochs):
        model.train()
        for data in train_loader:
            loss = model_forward(model, data)
            opt.zero_grad()
            loss.backward()
            opt.step()


def main(train_loader, num_c):
    model = ATDKT(num_c, 64).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    train_model(model, train_loader, opt, 10)
