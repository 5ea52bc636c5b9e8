# devcheck bug corpus: DC107
# From: https://github.com/pytorch/pytorch/issues/4377
# A TensorDataset of torch.cuda.LongTensor features and labels, read by a
# DataLoader with num_workers=2: "Cuda error (3): initialization error".
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader, TensorDataset

features = torch.cuda.LongTensor(range(12)).view(3, 4)  # <- bug
labels = torch.cuda.LongTensor(range(3))  # <- bug
dataset = TensorDataset(features, labels)
dataloader = DataLoader(dataset, num_workers=2)  # <- bug
for feat, lab in dataloader:
    print(feat, lab)
