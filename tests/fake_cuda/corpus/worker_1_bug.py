# kind: dataloader-worker-cuda
# source: https://github.com/pytorch/pytorch/issues/77159
# fix: return CPU tensors from the Dataset and move each batch to the device in the training loop
# expect: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
# sanitizer: none
# start-method: fork
"""A custom Dataset whose __getitem__ ends by moving the sample to the GPU,
read by a DataLoader with worker processes (fork, Linux's default)."""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class GPUDataset(Dataset):
    def __init__(self, n=32):
        self.x = torch.randn(n, 5)
        self.y = (self.x.sum(1) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx].to(device), self.y[idx].to(device)  # BUG:op


model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(GPUDataset(), batch_size=8, shuffle=False, num_workers=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("loss", round(loss.item(), 4))
