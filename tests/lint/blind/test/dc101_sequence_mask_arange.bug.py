# devcheck bug corpus: DC101
# From: https://github.com/OpenNMT/OpenNMT-py/pull/1494
# sequence_mask built its positions with torch.arange(0, max_len) and moved them
# with type_as(lengths), which lands on the current CUDA device, not on lengths'
# device when they differ. The fix made the arange on lengths.device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def sequence_mask(lengths, max_len=None):
    batch_size = lengths.numel()
    max_len = max_len or lengths.max()
    return (torch.arange(0, max_len)  # <- bug
            .type_as(lengths)  # <- bug
            .repeat(batch_size, 1)
            .lt(lengths.unsqueeze(1)))


def encode(encoder, src, lengths, device):
    src = src.to(device)
    lengths = lengths.to(device)
    mask = sequence_mask(lengths)
    return encoder(src) * mask.unsqueeze(-1)
