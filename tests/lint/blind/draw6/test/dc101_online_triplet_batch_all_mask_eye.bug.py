# devcheck bug corpus: DC101
# From: https://github.com/NegatioN/OnlineMiningTripletLoss/issues/6
# From: https://github.com/NegatioN/OnlineMiningTripletLoss/pull/7
# batch_hard_triplet_loss takes a device argument, but batch_all_triplet_loss
# does not: its triplet mask starts from torch.eye(batch) on the CPU and is
# combined with label comparisons made on the GPU, so the loss fails as soon
# as embeddings and labels are CUDA tensors.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def _pairwise_distances(embeddings, squared=False):
    dot = torch.matmul(embeddings, embeddings.t())
    sq = torch.diag(dot)
    d = (sq.unsqueeze(0) - 2.0 * dot + sq.unsqueeze(1)).clamp(min=0)
    if not squared:
        mask = d.eq(0).float()
        d = torch.sqrt(d + mask * 1e-16) * (1.0 - mask)
    return d


def _get_triplet_mask(labels):
    indices_equal = torch.eye(labels.size(0)).bool()  # <- bug
    indices_not_equal = ~indices_equal
    distinct = indices_not_equal.unsqueeze(2) & indices_not_equal.unsqueeze(1) & indices_not_equal.unsqueeze(0)
    label_equal = labels.unsqueeze(0) == labels.unsqueeze(1)
    valid_labels = label_equal.unsqueeze(2) & ~label_equal.unsqueeze(1)
    return valid_labels & distinct


def _get_anchor_positive_triplet_mask(labels, device):
    indices_equal = torch.eye(labels.size(0)).bool().to(device)
    return ~indices_equal & (labels.unsqueeze(0) == labels.unsqueeze(1))


def batch_hard_triplet_loss(labels, embeddings, margin, squared=False, device="cpu"):
    pairwise_dist = _pairwise_distances(embeddings, squared=squared)
    mask_ap = _get_anchor_positive_triplet_mask(labels, device).float()
    hardest_positive, _ = (mask_ap * pairwise_dist).max(1, keepdim=True)
    mask_an = (labels.unsqueeze(0) != labels.unsqueeze(1)).float()
    max_dist, _ = pairwise_dist.max(1, keepdim=True)
    hardest_negative, _ = (pairwise_dist + max_dist * (1.0 - mask_an)).min(1, keepdim=True)
    return (hardest_positive - hardest_negative + margin).clamp(min=0).mean()


def batch_all_triplet_loss(labels, embeddings, margin, squared=False):
    pairwise_dist = _pairwise_distances(embeddings, squared=squared)
    triplet_loss = pairwise_dist.unsqueeze(2) - pairwise_dist.unsqueeze(1) + margin
    mask = _get_triplet_mask(labels)
    triplet_loss = (mask.float() * triplet_loss).clamp(min=0)
    num_positive = (triplet_loss > 1e-16).float().sum()
    fraction_positive = num_positive / (mask.float().sum() + 1e-16)
    return triplet_loss.sum() / (num_positive + 1e-16), fraction_positive


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 64)).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    data = TensorDataset(torch.randn(4096, 128), torch.randint(0, 32, (4096,)))
    for x, y in DataLoader(data, batch_size=128, shuffle=True):
        x, y = x.to(device), y.to(device)
        emb = nn.functional.normalize(net(x), dim=1)
        loss, frac = batch_all_triplet_loss(y, emb, margin=0.2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
