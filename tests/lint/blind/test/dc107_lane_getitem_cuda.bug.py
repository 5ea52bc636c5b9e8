# devcheck bug corpus: DC107
# From: https://github.com/cfzd/Ultra-Fast-Lane-Detection-v2/issues/160
# A custom lane dataset called an interpolation that needs CUDA tensors, moving
# its labels with .cuda() in __getitem__; with num_workers > 0: "Cannot
# re-initialize CUDA in forked subprocess".
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader, Dataset


def my_interp(points, steps):
    return torch.nn.functional.interpolate(points[None, None], size=steps)[0, 0]


class LaneDataset(Dataset):
    def __init__(self, samples):
        self.samples = samples

    def __getitem__(self, idx):
        image, lanes = self.samples[idx]
        lanes = my_interp(torch.as_tensor(lanes).cuda(), 56)  # <- bug
        return image, lanes

    def __len__(self):
        return len(self.samples)


def make_loader(samples):
    return DataLoader(LaneDataset(samples), batch_size=32, num_workers=4)
