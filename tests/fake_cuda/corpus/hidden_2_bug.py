# kind: hidden-state
# source: https://github.com/facebookresearch/pytext/pull/297
# fix: allocate the zero hidden state on the embedding's device (the pull request's "allocates the tensor on CPU")
# expect: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument index in method wrapper__index_select)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument index in method wrapper_CUDA__index_select)
# sanitizer: mismatch
"""Bidirectional LSTM sentence encoder over a padded, unsorted batch: the
representation passes an explicit zero initial state, made with torch.zeros."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class BiLSTMRepresentation(nn.Module):
    def __init__(self, vocab=30, embed_dim=8, hidden=6, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.embedding = nn.Embedding(vocab, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden, layers, batch_first=True, bidirectional=True)

    def forward(self, tokens, lengths):
        embedded = self.embedding(tokens)
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        shape = (self.layers * 2, tokens.size(0), self.hidden)
        states = (torch.zeros(shape), torch.zeros(shape))  # BUG:stray
        out, _ = self.lstm(packed, states)  # BUG:op
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out.max(dim=1).values


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = BiLSTMRepresentation()
        self.head = nn.Linear(12, 3)

    def forward(self, tokens, lengths):
        return self.head(self.encoder(tokens, lengths))


lengths = torch.tensor([3, 5, 2, 4])
tokens = torch.zeros(4, 5, dtype=torch.long)
for i, n in enumerate(lengths.tolist()):
    tokens[i, :n] = torch.randint(1, 30, (n,))
labels = torch.tensor([0, 2, 1, 2])

model = Classifier().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    logits = model(tokens.to(device), lengths)
    loss = nn.functional.cross_entropy(logits, labels.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
