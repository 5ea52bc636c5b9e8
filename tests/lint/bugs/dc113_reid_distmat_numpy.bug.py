# devcheck bug corpus: DC113
# From: https://github.com/JDAI-CV/fast-reid/pull/509
# visualize_result.py computes the distance matrix from features on the GPU and
# calls distmat.numpy(): "can't convert cuda:0 device type tensor to numpy".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F


def compute_distmat(predictor, data_loader, device):
    feats = []
    for images, pids in data_loader:
        feats.append(predictor(images.to(device)))
    feats = F.normalize(torch.cat(feats, dim=0), dim=1)
    distmat = 1 - torch.mm(feats, feats.t())
    distmat = distmat.numpy()  # <- bug
    return distmat
