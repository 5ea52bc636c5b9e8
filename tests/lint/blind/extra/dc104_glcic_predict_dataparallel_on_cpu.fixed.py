# devcheck bug corpus: DC104
# From: https://github.com/otenim/GLCIC-PyTorch/issues/8
# Fixed: training saves the unwrapped network's weights, and prediction loads
# them into the bare network, without DataParallel.
# Written for devcheck's tests after the thread; not the project's code.
import json

import torch
import torch.nn as nn


class CompletionNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Conv2d(4, 64, 5, padding=2)
        self.decode = nn.Conv2d(64, 3, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.decode(torch.relu(self.encode(x))))


def predict(model_path, config_path, x, mask):
    with open(config_path) as f:
        config = json.load(f)
    mpv = torch.tensor(config["mpv"]).view(1, 3, 1, 1)
    model = CompletionNetwork()  # <- fixed
    model.load_state_dict(torch.load(model_path, map_location="cpu"))
    with torch.no_grad():
        x_mask = x - x * mask + mpv * mask
        inputs = torch.cat((x_mask, mask), dim=1)
        return model(inputs)
