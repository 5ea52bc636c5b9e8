# kind: mask-in-forward
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/mozilla/TTS/pull/549
# source: https://github.com/mozilla/TTS/issues/473
# fix: seq_range = torch.arange(max_len, dtype=sequence_length.dtype, device=sequence_length.device)
"""A masked L1 loss for padded spectrogram frames, as in a TTS decoder's loss:
sequence_mask builds the padding mask from torch.arange(max_len)."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def sequence_mask(sequence_length, max_len=None):
    if max_len is None:
        max_len = sequence_length.data.max()
    seq_range = torch.arange(max_len, dtype=sequence_length.dtype, device=sequence_length.device)
    return seq_range.unsqueeze(0) < sequence_length.unsqueeze(1)


class MaskedL1Loss(nn.Module):
    def forward(self, x, target, length):
        mask = sequence_mask(length, target.size(1)).unsqueeze(2).float()
        mask = mask.expand_as(x)
        return nn.functional.l1_loss(x * mask, target * mask, reduction="sum") / mask.sum()


decoder = nn.GRU(4, 4, batch_first=True).to(device)
criterion = MaskedL1Loss()
optimizer = torch.optim.Adam(decoder.parameters(), lr=1e-3)
frames = torch.randn(3, 7, 4)
lengths = torch.tensor([7, 5, 3])
for step in range(3):
    x, t, n = frames.to(device), frames.roll(1, 1).to(device), lengths.to(device)
    out, _ = decoder(x)
    loss = criterion(out, t, n)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
