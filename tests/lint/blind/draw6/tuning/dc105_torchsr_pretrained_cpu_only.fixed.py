# devcheck bug corpus: DC105
# From: https://github.com/Coloquinte/torchSR/pull/3
# The fix passes map_location="cpu" to load_state_dict_from_url, so pretrained
# models build on CPU-only instances; the caller moves them where it wants.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.hub import load_state_dict_from_url

urls = {
    "r16f64x2": "https://example.org/releases/edsr64_x2.pt",
    "r16f64x4": "https://example.org/releases/edsr64_x4.pt",
}


class ResBlock(nn.Module):
    def __init__(self, n_feats, res_scale=1.0):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(n_feats, n_feats, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(n_feats, n_feats, 3, padding=1),
        )
        self.res_scale = res_scale

    def forward(self, x):
        return x + self.body(x) * self.res_scale


class EDSR(nn.Module):
    def __init__(self, n_resblocks, n_feats, scale, res_scale=1.0):
        super().__init__()
        self.head = nn.Conv2d(3, n_feats, 3, padding=1)
        self.body = nn.Sequential(*[ResBlock(n_feats, res_scale) for _ in range(n_resblocks)])
        self.tail = nn.Sequential(
            nn.Conv2d(n_feats, 3 * scale * scale, 3, padding=1), nn.PixelShuffle(scale)
        )

    def forward(self, x):
        h = self.head(x)
        return self.tail(h + self.body(h))


def edsr(n_resblocks, n_feats, scale, pretrained=False):
    model = EDSR(n_resblocks, n_feats, scale)
    if pretrained:
        key = "r{}f{}x{}".format(n_resblocks, n_feats, scale)
        if key not in urls:
            raise KeyError("no pretrained weights for {}".format(key))
        state_dict = load_state_dict_from_url(urls[key], progress=True, map_location="cpu")  # <- fixed
        model.load_state_dict(state_dict)
    return model


def edsr_r16f64(scale, pretrained=False):
    return edsr(16, 64, scale, pretrained)


if __name__ == "__main__":
    net = edsr_r16f64(2, pretrained=True).eval()
    lr = torch.rand(1, 3, 48, 48)
    with torch.no_grad():
        sr = net(lr)
    print(sr.shape)
