# devcheck bug corpus: DC101
# From: https://github.com/mozilla/TTS/issues/473
# From: https://github.com/mozilla/TTS/pull/549
# The guided-attention loss builds its mask grid with torch.arange(olen) and
# torch.arange(ilen) from lengths that are on the GPU; arange of a CUDA scalar
# still makes a CPU tensor, and the grid meets the lengths.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class GuidedAttentionLoss(nn.Module):
    def __init__(self, sigma=0.4):
        super().__init__()
        self.sigma = sigma

    def _make_ga_masks(self, ilens, olens):
        B = len(ilens)
        max_ilen = int(max(ilens))
        max_olen = int(max(olens))
        ga_masks = torch.zeros((B, max_olen, max_ilen))
        for idx, (ilen, olen) in enumerate(zip(ilens, olens)):
            ga_masks[idx, :olen, :ilen] = self._make_ga_mask(ilen, olen, self.sigma)
        return ga_masks

    @staticmethod
    def _make_ga_mask(ilen, olen, sigma):
        grid_x, grid_y = torch.meshgrid(torch.arange(olen, device=olen.device), torch.arange(ilen, device=ilen.device))  # <- fixed
        grid_x, grid_y = grid_x.float(), grid_y.float()
        return 1.0 - torch.exp(-(grid_y / ilen - grid_x / olen) ** 2 / (2 * (sigma ** 2)))

    def forward(self, att_ws, ilens, olens):
        ga_masks = self._make_ga_masks(ilens, olens).to(att_ws.device)
        return torch.mean(ga_masks * att_ws)
