# kind: cuda0-vs-cuda1
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/otaheri/chamfer_distance/pull/5
# fix: "cuda changed to specific device": create the buffers on the inputs' device (device=xyz1.device)
"""A point-cloud autoencoder trained on the second GPU with a chamfer
distance whose distance buffers are made on device "cuda" -- the current GPU,
cuda:0, not the GPU of the point clouds."""
import torch
from torch import nn

torch.manual_seed(0)
if torch.cuda.device_count() > 1:
    device = torch.device("cuda:1")
else:
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def chamfer_distance(xyz1, xyz2):
    batchsize, n, _ = xyz1.size()
    m = xyz2.size(1)
    dist1 = torch.zeros(batchsize, n, device=xyz1.device)
    dist2 = torch.zeros(batchsize, m, device=xyz1.device)
    d = torch.cdist(xyz1, xyz2)
    dist1 = dist1 + d.min(dim=2).values ** 2
    dist2 = dist2 + d.min(dim=1).values ** 2
    return dist1.mean() + dist2.mean()


autoencoder = nn.Sequential(nn.Flatten(), nn.Linear(30, 8), nn.ReLU(), nn.Linear(8, 30),
                            nn.Unflatten(1, (10, 3))).to(device)
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
clouds = torch.rand(4, 10, 3)
for step in range(3):
    x = clouds.to(device)
    loss = chamfer_distance(autoencoder(x), x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("chamfer", round(loss.item(), 4))
