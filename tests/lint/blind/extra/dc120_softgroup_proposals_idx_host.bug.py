# devcheck bug corpus: DC120
# From: https://github.com/thangvubk/SoftGroup/issues/215
# A point-cloud instance segmenter grouped points into proposals with a
# clustering op that takes and returns CPU tensors, then selected proposals
# with a mask computed from the network's scores on the GPU:
# `proposals_idx[mask_inds]` failed with "indices should be either on cpu or
# on the same device as the indexed tensor (cpu)". The fix given in the
# thread moves the proposals' indices to the mask's device first.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def bfs_cluster(batch_idxs, neighbor_inds, start_len, threshold):
    # The clustering op of the project's C++ extension: CPU in, CPU out.
    clusters = []
    for i in range(int(start_len.numel())):
        if int(neighbor_inds[i].numel()) >= threshold:
            clusters.append(torch.stack([torch.full_like(neighbor_inds[i], i), neighbor_inds[i]], dim=1))
    proposals_idx = torch.cat(clusters) if clusters else torch.zeros(0, 2, dtype=torch.long)
    return proposals_idx, torch.tensor([0, proposals_idx.size(0)])


class SoftGroup(nn.Module):
    def __init__(self, channels=32, classes=20):
        super().__init__()
        self.semantic = nn.Linear(channels, classes)
        self.offset = nn.Linear(channels, 3)

    def forward(self, feats, batch_idxs, neighbor_inds, start_len):
        scores = self.semantic(feats).softmax(-1)
        proposals_idx, proposals_offset = bfs_cluster(
            batch_idxs.cpu(), neighbor_inds.cpu(), start_len.cpu(), threshold=2)
        mask_inds = scores[:, 1:].max(-1).values > 0.2
        point_mask = mask_inds[proposals_idx[:, 1]]
        cur_proposals_idx = proposals_idx[point_mask].long()  # <- bug
        return cur_proposals_idx, proposals_offset


def predict(model, batch, device):
    model = model.to(device)
    feats = batch["feats"].to(device)
    return model(feats, batch["batch_idxs"].to(device), batch["neighbors"].to(device), batch["start"].to(device))
