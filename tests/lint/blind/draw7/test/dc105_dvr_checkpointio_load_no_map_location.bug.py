# devcheck bug corpus: DC105
# From: https://github.com/autonomousvision/differentiable_volumetric_rendering/pull/31
# From: https://github.com/autonomousvision/differentiable_volumetric_rendering/pull/30
# DVR's CheckpointIO loads the released checkpoints (saved on a GPU) with a bare
# torch.load / model_zoo.load_url, so render.py with --no-cuda, or on a machine
# without CUDA, fails while deserializing the CUDA tensors.
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

    def load(self, filename):
        return self.load_url(filename) if is_url(filename) else self.load_file(filename)

    def load_file(self, filename):
        if not os.path.isabs(filename):
            filename = os.path.join(self.checkpoint_dir, filename)
        if not os.path.exists(filename):
            raise FileExistsError
        state_dict = torch.load(filename)  # <- bug
        return self.parse_state_dict(state_dict)

    def load_url(self, url):
        state_dict = model_zoo.load_url(url, progress=True)  # <- bug
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
    checkpoint_io.load(args.model_file)
    model.eval()
    with torch.no_grad():
        print(model(torch.rand(1024, 3, device=device)).shape)
