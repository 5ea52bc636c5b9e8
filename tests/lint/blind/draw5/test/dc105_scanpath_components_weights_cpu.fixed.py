# devcheck bug corpus: DC105
# From: https://github.com/sunwj/scanpath/pull/7
# From: https://github.com/sunwj/scanpath/commit/0ed7122ded4800e232e626e756df8d0185ac7f99
# The fix passes a map_location to every load: None when CUDA is there,
# else the CPU device the modules were built on.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class FeatureFusion(nn.Module):
    def __init__(self, in_dim, out_dim=512):
        super().__init__()
        self.proj = nn.Conv2d(in_dim, out_dim, 1)

    def forward(self, x):
        return torch.relu(self.proj(x))


class IORROILstm(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.cell = nn.LSTMCell(in_dim, hidden)

    def forward(self, x, state=None):
        return self.cell(x, state)


class FixationDuration(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, x):
        return self.net(x)


device = torch.cuda.current_device() if torch.cuda.is_available() else torch.device("cpu")
fuser = FeatureFusion(3001).to(device)
iorroi_lstm = IORROILstm(512, 512).to(device)
mdn = nn.Sequential(nn.Linear(450, 512), nn.Tanh(), nn.Linear(512, 60)).to(device)
fix_duration = FixationDuration(512, 128).to(device)

location_mapper = None if torch.cuda.is_available() else device  # <- fixed

fuser.load_state_dict(torch.load("./data/weights/fuser.pth", map_location=location_mapper))  # <- fixed
iorroi_lstm.load_state_dict(torch.load("./data/weights/iorroi.pth", map_location=location_mapper))  # <- fixed
mdn.load_state_dict(torch.load("./data/weights/mdn.pth", map_location=location_mapper))  # <- fixed
fix_duration.load_state_dict(torch.load("./data/weights/fix_duration.pth", map_location=location_mapper))  # <- fixed


def first_fixation(height=300, width=400):
    dist = np.load("./data/first_fix_dist.npy")
    idx = np.random.choice(dist.size, p=dist.ravel() / dist.sum())
    return np.unravel_index(idx, (height, width))


if __name__ == "__main__":
    print(first_fixation())
