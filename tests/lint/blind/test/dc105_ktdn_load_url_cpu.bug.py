# devcheck bug corpus: DC105
# From: https://github.com/GlassyWu/KTDN/issues/1
# A dehazing network loaded pretrained Res2Net weights in its constructor with
# model_zoo.load_url(url) and no map_location; the published weights hold CUDA
# storages, so on a machine without CUDA: "Attempting to deserialize object on
# a CUDA device but torch.cuda.is_available() is False".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.utils.model_zoo as model_zoo

model_urls = {"res2net101_v1b_26w_4s": "https://example.org/res2net101_v1b_26w_4s.pth"}


class Dehaze(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        backbone.load_state_dict(model_zoo.load_url(model_urls["res2net101_v1b_26w_4s"]))  # <- bug
        self.backbone = backbone
        self.head = nn.Conv2d(64, 3, 3, padding=1)

    def forward(self, x):
        return self.head(self.backbone(x))
