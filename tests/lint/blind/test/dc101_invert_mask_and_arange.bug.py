# devcheck bug corpus: DC101
# From: https://github.com/ftherrien/inv-design/pull/3
# Inverting a trained graph network: a random mask drawn with torch.rand (on the
# host) was combined with a mask of the adjacency vector (on the GPU), and index
# tensors came from torch.arange without a device: "Expected all tensors to be on
# the same device". The fix moved the draw and made the aranges on the vector's
# device.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def start_from(sample, device):
    fea_h = sample.x.to(device)
    adj_vec = sample.adj.to(device)
    return fea_h, adj_vec


def invert(model, sample, device):
    fea_h, adj_vec = start_from(sample, device)
    mask = adj_vec == 0
    mask_mask = torch.rand(mask.shape) > 0.15  # <- bug
    adj_mask = ~(mask * mask_mask)
    adj_indices = torch.arange(adj_vec.shape[0])  # <- bug
    culprits = adj_vec[adj_indices[adj_mask]]
    return model(fea_h, culprits)
