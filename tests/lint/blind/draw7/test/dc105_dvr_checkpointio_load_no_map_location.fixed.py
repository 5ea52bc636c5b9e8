# devcheck bug corpus: DC105
# From: https://github.com/autonomousvision/differentiable_volumetric_rendering/pull/31
# From: https://github.com/autonomousvision/differentiable_volumetric_rendering/pull/30
# The fix (PR #30, and #31 for the callers) gives CheckpointIO.load a device,
# passed down as map_location to torch.load and model_zoo.load_url, and the
# scripts pass the device they chose.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os
import urllib.parse

import torch
import torch.nn as nn
from torch.utils import model_zoo


def is_url(name):
    return urllib.parse.urlparse(name).scheme in ("http", "https")


class CheckpointIO:
    def __init__(self, checkpoint_dir="./chkpts", **modules):
        self.module_dict = modules
        self.checkpoint_dir = checkpoint_dir
        os.makedirs(checkpoint_dir, exist_ok=True)

    def save(self, filename, **scalars):
        out = dict(scalars)
        for k, v in self.module_dict.items():
            out[k] = v.state_dict()
        torch.save(out, os.path.join(self.checkpoint_dir, filename))

    def load(self, filename, device):  # <- fixed
        return self.load_url(filename, device) if is_url(filename) else self.load_file(filename, device)  # <- fixed

    def load_file(self, filename, device):  # <- fixed
        if not os.path.isabs(filename):
            filename = os.path.join(self.checkpoint_dir, filename)
        if not os.path.exists(filename):
            raise FileExistsError
        state_dict = torch.load(filename, map_location=torch.device(device))  # <- fixed
        return self.parse_state_dict(state_dict)

    def load_url(self, url, device):  # <- fixed
        state_dict = model_zoo.load_url(url, progress=True, map_location=torch.device(device))  # <- fixed
        return self.parse_state_dict(state_dict)

    def parse_state_dict(self, state_dict):
        for k, v in self.module_dict.items():
            if k in state_dict:
                v.load_state_dict(state_dict[k])
        return {k: v for k, v in state_dict.items() if k not in self.module_dict}


class OccupancyNetwork(nn.Module):
    def __init__(self, dim=3, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, p):
        return self.net(p)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Render a trained DVR model.")
    parser.add_argument("model_file", type=str)
    parser.add_argument("--no-cuda", action="store_true")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")

    model = OccupancyNetwork().to(device)
    checkpoint_io = CheckpointIO("out/render", model=model)
    checkpoint_io.load(args.model_file, device=device)  # <- fixed
    model.eval()
    with torch.no_grad():
        print(model(torch.rand(1024, 3, device=device)).shape)
