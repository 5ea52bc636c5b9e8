# devcheck bug corpus: DC107
# From: https://github.com/pytorch/pytorch/issues/40403
# A synthetic dataset made its sample tensor on the GPU in __init__ and
# returned it from __getitem__; with worker processes: "Cannot re-initialize
# CUDA in forked subprocess".
# Written for devcheck's tests after the thread; not the project's code.
import random
import torch
import torch.utils.data as data


class DummyDataset(data.Dataset):
    def __init__(self, num_classes):
        super().__init__()
        self.tensor = torch.randn(3, 224, 224, device=torch.device("cuda"))  # <- bug
        self.num_classes = num_classes

    def __getitem__(self, index):
        random.seed(index)
        return self.tensor, random.randint(0, self.num_classes - 1)

    def __len__(self):
        return 1000


loader = data.DataLoader(DummyDataset(10), batch_size=32, num_workers=4)
