# devcheck bug corpus: DC101
# From: https://github.com/OML-Team/open-metric-learning/issues/369
# From: https://github.com/OML-Team/open-metric-learning/pull/372
# OML's NHardTripletsMiner: the loop over anchors walks a bare
# torch.arange(len(labels)), on the CPU, indexed with the anchor mask that was
# built on the distance matrix's device; with features on the GPU the mask is a
# CUDA tensor indexing a CPU tensor.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def pairwise_dist(x1, x2):
    return torch.cdist(x1, x2, p=2)


def take_2d(x, indices):
    rows = torch.arange(x.shape[0], device=x.device)[:, None].expand_as(indices)
    return x[rows, indices]


class NHardTripletsMiner:
    def __init__(self, n_positive=1, n_negative=1):
        self.positive_slice = slice(0, n_positive)
        self.negative_slice = slice(0, n_negative)

    def sample(self, features, labels, ignore_anchor_mask=None):
        assert features.shape[0] == len(labels)
        distmat = pairwise_dist(features, features)
        if isinstance(labels, (list, tuple)):
            labels = torch.tensor(labels, device=distmat.device).long()
        if ignore_anchor_mask is None:
            ignore_anchor_mask = torch.zeros(len(distmat), dtype=torch.bool, device=distmat.device)
        keep = torch.logical_not(ignore_anchor_mask)
        all_ids = torch.arange(len(labels), device=distmat.device)[keep]

        far_first = torch.argsort(distmat[keep], descending=True, dim=1)
        same = labels[:, None] == labels[None, :]
        same.fill_diagonal_(False)
        a_pos, p_sorted = torch.nonzero(take_2d(same[keep], far_first), as_tuple=True)
        hardest_pos, idx_anch_pos = far_first[a_pos, p_sorted], all_ids[a_pos]

        near_first = torch.flip(far_first, dims=(1,))
        diff = (labels[:, None] != labels[None, :])[keep]
        a_neg, n_sorted = torch.nonzero(take_2d(diff, near_first), as_tuple=True)
        hardest_neg, idx_anch_neg = near_first[a_neg, n_sorted], all_ids[a_neg]

        ids_a, ids_p, ids_n = [], [], []
        for idx_anch in torch.arange(len(labels))[keep]:  # <- bug
            positives = hardest_pos[idx_anch_pos == idx_anch][self.positive_slice]
            negatives = hardest_neg[idx_anch_neg == idx_anch][self.negative_slice]
            i_pos, i_neg = zip(*torch.cartesian_prod(positives, negatives).tolist())
            ids_a.extend([idx_anch.item()] * len(i_pos))
            ids_p.extend(i_pos)
            ids_n.extend(i_neg)
        return ids_a, ids_p, ids_n


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    extractor = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)).to(device)
    miner = NHardTripletsMiner(n_positive=2, n_negative=2)
    criterion = nn.TripletMarginLoss(margin=0.2)
    features = extractor(torch.randn(12, 32, device=device))
    labels = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    a, p, n = miner.sample(features=features, labels=labels)
    loss = criterion(features[a], features[p], features[n])
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
