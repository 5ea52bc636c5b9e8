# kind: hidden-state
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/3738
# fix: make the initial hidden and cell states on the model's device (torch.zeros(..., device=...))
"""Character-level LSTM generator: the hidden and cell states are reset with
torch.zeros before every name, which puts them on the CPU."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

VOCAB = 12
NAMES = [[1, 4, 7, 2, 9], [3, 3, 8, 1], [5, 6, 2, 10, 11, 4]]


class CharLSTM(nn.Module):
    def __init__(self, vocab, embed=8, hidden=16, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, layers, dropout=0.1)
        self.out = nn.Linear(hidden, vocab)

    def init_states(self, batch):
        h = torch.zeros(self.layers, batch, self.hidden, device=self.out.weight.device)
        c = torch.zeros(self.layers, batch, self.hidden, device=self.out.weight.device)
        return h, c

    def forward(self, letters, h, c):
        x = self.embed(letters).unsqueeze(0)
        y, (h, c) = self.lstm(x, (h, c))
        return self.out(y.squeeze(0)), h, c


model = CharLSTM(VOCAB).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(2):
    for name in NAMES:
        letters = torch.tensor(name, device=device)
        h, c = model.init_states(1)
        loss = 0.0
        for i in range(len(name) - 1):
            logits, h, c = model(letters[i:i + 1], h, c)
            loss = loss + criterion(logits, letters[i + 1:i + 2])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("epoch", epoch, "loss", round(float(loss) / len(name), 4))
