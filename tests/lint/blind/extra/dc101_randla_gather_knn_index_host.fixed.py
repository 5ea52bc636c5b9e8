# devcheck bug corpus: DC101
# From: https://github.com/aRI0U/RandLA-Net-pytorch/pull/29
# Fixed: the neighbour indices are moved to the features' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def knn(support, query, k):
    dist = torch.cdist(query, support)
    d, idx = dist.topk(k, dim=-1, largest=False)
    return idx, d


class LocalSpatialEncoding(nn.Module):
    def __init__(self, d, num_neighbors):
        super().__init__()
        self.num_neighbors = num_neighbors
        self.mlp = nn.Conv2d(10, d, 1)

    def forward(self, coords, features, knn_output):
        idx, dist = knn_output
        B, N, K = idx.size()
        extended_idx = idx.unsqueeze(1).expand(B, 3, N, K).to(features.device)  # <- fixed
        extended_coords = coords.transpose(-2, -1).unsqueeze(-1).expand(B, 3, N, K)
        neighbors = torch.gather(extended_coords, 2, extended_idx)
        concat = torch.cat((extended_coords, neighbors, extended_coords - neighbors, dist.unsqueeze(-3).to(coords.device)), dim=-3)
        return torch.cat((self.mlp(concat), features.expand(B, -1, N, K)), dim=-3)


class LocalFeatureAggregation(nn.Module):
    def __init__(self, d_in, d_out, num_neighbors):
        super().__init__()
        self.num_neighbors = num_neighbors
        self.mlp1 = nn.Conv2d(d_in, d_out // 2, 1)
        self.lse = LocalSpatialEncoding(d_out // 2, num_neighbors)

    def forward(self, coords, features):
        knn_output = knn(coords.cpu().contiguous(), coords.cpu().contiguous(), self.num_neighbors)
        x = self.mlp1(features)
        return self.lse(coords, x, knn_output)


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    lfa = LocalFeatureAggregation(8, 16, 16).to(device)
    coords = torch.randn(1, 1024, 3, device=device)
    features = torch.randn(1, 8, 1024, 1, device=device)
    print(lfa(coords, features).shape)


if __name__ == "__main__":
    main()
