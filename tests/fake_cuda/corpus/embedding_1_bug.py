# kind: embedding-index
# source: https://github.com/spro/practical-pytorch/issues/57
# source: https://github.com/pytorch/pytorch/issues/7236
# fix: move the index tensor to the model's device before the embedding (inp = inp.to(device))
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper__index_select)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)
# sanitizer: mismatch
"""Char-RNN text generation: char_tensor turns a string into a LongTensor of
indices, and the decoder (on the GPU) embeds one character at a time."""
import string

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
all_characters = string.printable
n_characters = len(all_characters)
text = "the quick brown fox jumps over the lazy dog " * 3


def char_tensor(s):
    return torch.tensor([all_characters.index(c) for c in s], dtype=torch.long)  # BUG:stray


class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.encoder = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, inp, hidden):
        x = self.encoder(inp.view(1, -1))  # BUG:op
        output, hidden = self.gru(x.view(1, 1, -1), hidden)
        return self.decoder(output.view(1, -1)), hidden

    def init_hidden(self):
        return torch.zeros(1, 1, self.hidden, device=self.decoder.weight.device)


decoder = CharRNN(n_characters).to(device)
optimizer = torch.optim.Adam(decoder.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()
chunk_len = 12
for epoch in range(3):
    start = epoch * 7
    chunk = text[start:start + chunk_len + 1]
    inp, target = char_tensor(chunk[:-1]), char_tensor(chunk[1:])
    hidden = decoder.init_hidden()
    loss = 0
    for c in range(chunk_len):
        output, hidden = decoder(inp[c], hidden)
        loss = loss + criterion(output, target[c].unsqueeze(0).to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item() / chunk_len, 4))
