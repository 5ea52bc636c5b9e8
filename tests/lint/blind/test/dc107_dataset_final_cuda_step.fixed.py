# devcheck bug corpus: DC107
# From: https://github.com/pytorch/pytorch/issues/77159
# Teams moving each sample to the GPU as the last step of their Dataset's
# __getitem__ got "Cannot re-initialize CUDA in forked subprocess" as soon as
# num_workers > 0 (and fell back to num_workers=0, starving the GPU).
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader, Dataset


class MyDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        x = torch.rand(3, 32, 32)
        return x  # <- fixed


def batches():
    loader = DataLoader(MyDataset(1000), batch_size=16, num_workers=2)
    for batch in loader:
        yield batch.to("cuda")
