# devcheck bug corpus: DC105
# From: https://github.com/lucidrains/imagen-pytorch/pull/190
# load_imagen_from_checkpoint rebuilds an Imagen from the configuration saved
# in a trainer checkpoint and loads its weights, but it read the checkpoint
# with torch.load(path) and no map_location: the tensors went back to the GPU
# they were saved from, whatever device the network would actually run on
# (none, on a CPU-only machine). The pull request maps the checkpoint to the
# CPU first; the caller moves the model afterwards.
# Written for devcheck's tests after the thread; not the project's code.
from functools import reduce
from pathlib import Path

import torch
from torch import nn


def exists(val):
    return val is not None


def safeget(dictionary, keys, default=None):
    return reduce(lambda d, key: d.get(key, default) if isinstance(d, dict) else default, keys.split("."), dictionary)


class Unet(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, dim, 3, padding=1), nn.SiLU(), nn.Conv2d(dim, 3, 3, padding=1))

    def forward(self, x):
        return self.net(x)


class Imagen(nn.Module):
    def __init__(self, dims=(64,)):
        super().__init__()
        self.unets = nn.ModuleList([Unet(d) for d in dims])


def load_imagen_from_checkpoint(checkpoint_path, load_weights=True):
    model_path = Path(checkpoint_path)
    full_model_path = str(model_path.resolve())
    assert model_path.exists(), f"checkpoint not found at {full_model_path}"
    loaded = torch.load(str(model_path))  # <- bug

    imagen_params = safeget(loaded, "imagen_params")
    imagen_type = safeget(loaded, "imagen_type")
    assert exists(imagen_params) and exists(imagen_type), "imagen type and configuration not saved in this checkpoint"
    imagen = Imagen(**imagen_params)
    if not load_weights:
        return imagen
    imagen.load_state_dict(loaded["model"])
    return imagen


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    imagen = load_imagen_from_checkpoint("./checkpoint.pt").to(device)
    with torch.no_grad():
        print(imagen.unets[0](torch.randn(1, 3, 64, 64, device=device)).shape)
