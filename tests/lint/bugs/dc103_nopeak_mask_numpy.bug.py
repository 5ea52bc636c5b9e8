# devcheck bug corpus: DC103
# From: https://github.com/SamLynnEvans/Transformer/issues/27
# The decoder's no-peek mask is built with np.triu and torch.from_numpy and
# moved only when opt.device == 0; with the device given otherwise, "trg_mask &
# np_mask" mixes cuda:0 and cpu.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def nopeak_mask(size, opt):
    np_mask = np.triu(np.ones((1, size, size)), k=1).astype("uint8")
    np_mask = torch.from_numpy(np_mask) == 0  # <- bug
    if opt.device == 0:
        np_mask = np_mask.cuda()
    return np_mask


def create_masks(src, trg, opt):
    src_mask = (src != opt.src_pad).unsqueeze(-2)
    trg_mask = (trg != opt.trg_pad).unsqueeze(-2)
    np_mask = nopeak_mask(trg.size(1), opt)
    trg_mask = trg_mask & np_mask  # <- bug
    return src_mask, trg_mask
