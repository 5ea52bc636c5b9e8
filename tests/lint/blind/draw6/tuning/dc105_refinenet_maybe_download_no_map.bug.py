# devcheck bug corpus: DC105
# From: https://github.com/DrSleep/light-weight-refinenet/issues/69
# maybe_download() hands its own map_location parameter (default None) to
# torch.load, and the model builders call it without one: the released
# weights, saved from a GPU, fail to load on a CPU-only machine even though
# the notebook only moves the network with .cuda() when CUDA is there.
# Written for devcheck's tests after the thread; not the project's code.
import os
import sys
import urllib.request

import torch
import torch.nn as nn

models_urls = {
    "50_voc": "https://example.org/weights/rf_lw50_voc.pth.tar",
    "101_voc": "https://example.org/weights/rf_lw101_voc.pth.tar",
}


def maybe_download(model_name, model_url, model_dir=None, map_location=None):
    if model_dir is None:
        model_dir = os.path.expanduser(os.path.join("~", ".torch", "models"))
    os.makedirs(model_dir, exist_ok=True)
    cached_file = os.path.join(model_dir, "{}.pth.tar".format(model_name))
    if not os.path.exists(cached_file):
        sys.stderr.write('Downloading: "{}" to {}\n'.format(model_url, cached_file))
        urllib.request.urlretrieve(model_url, cached_file)
    return torch.load(cached_file, map_location=map_location)


class RefineNetLW(nn.Module):
    def __init__(self, num_classes, width=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 7, stride=2, padding=3), nn.BatchNorm2d(width), nn.ReLU(inplace=True)
        )
        self.clf = nn.Conv2d(width, num_classes, 3, padding=1)

    def forward(self, x):
        return self.clf(self.backbone(x))


def rf_lw50(num_classes, pretrained=False):
    model = RefineNetLW(num_classes)
    if pretrained:
        key = "rf_lw50_voc"
        model.load_state_dict(maybe_download(key, models_urls["50_voc"]), strict=False)  # <- bug
    return model


def rf_lw101(num_classes, pretrained=False):
    model = RefineNetLW(num_classes, width=96)
    if pretrained:
        key = "rf_lw101_voc"
        model.load_state_dict(maybe_download(key, models_urls["101_voc"]), strict=False)  # <- bug
    return model


if __name__ == "__main__":
    has_cuda = torch.cuda.is_available()
    n_classes = 21
    nets = {}
    for name, fun in {"rf_lw50": rf_lw50, "rf_lw101": rf_lw101}.items():
        net = fun(n_classes, pretrained=True).eval()
        if has_cuda:
            net = net.cuda()
        nets[name] = net
