# devcheck bug corpus: DC103
# From: https://github.com/trueagi-io/minecraft-demo/pull/33
# From: https://github.com/trueagi-io/minecraft-demo/commit/d8c9c237a8a1ee23b089defc76a57b92a1533673
# Fixed as the commit does it: the net's forward moves its input to the
# device (and dtype) of its own parameters, so the host frame is copied there.
# Written for devcheck's tests after the thread; not the project's code.
import os

import numpy
import torch
from torch import nn


class DepthToSpace(nn.Module):
    def __init__(self, block_size):
        super().__init__()
        self.bs = block_size

    def forward(self, x):
        return nn.functional.pixel_shuffle(x, self.bs)


class GoodPoint(nn.Module):
    def __init__(self, grid_size, n_blocks, n_channels=3):
        super().__init__()
        self.activation = nn.ReLU()
        self.conv1 = nn.Conv2d(n_channels, 64, 3, padding=1)
        self.conv2 = nn.Conv2d(64, 128, 3, padding=1)
        self.conv3 = nn.Conv2d(128, 128, 3, padding=1)
        self.pool = nn.MaxPool2d((2, 2))
        self.convPa = nn.Conv2d(128, 256, 3, padding=1)
        self.convPb = nn.Conv2d(256, grid_size * grid_size * n_blocks, 1)
        self.depth_to_space = DepthToSpace(grid_size)

    def vgg(self, x):
        x = self.pool(self.activation(self.conv1(x)))
        x = self.pool(self.activation(self.conv2(x)))
        return self.pool(self.activation(self.conv3(x)))

    def forward(self, x):
        assert x.max() > 0.01
        assert x.max() < 1.01
        x = x.to(next(self.parameters()))  # <- fixed
        x = self.vgg(x)
        semi_det = self.activation(self.convPb(self.activation(self.convPa(x))))
        return nn.functional.softmax(self.depth_to_space(semi_det), dim=1)


class NeuralScan:
    def __init__(self, rob, blocks):
        self.rob = rob
        self.blocks = blocks
        self.net = self.load_model()

    def load_model(self, path="experiments/goodpoint.pt"):
        device = "cuda" if torch.cuda.is_available() else "cpu"
        net = GoodPoint(8, 3, n_channels=3).to(device)
        if os.path.exists(path):
            net.load_state_dict(torch.load(path, map_location=device)["model"])
        return net

    def _get_image(self):
        img_frame = self.rob.waitNotNoneObserve("getImageFrame")
        if img_frame is None:
            return None
        img_data = numpy.frombuffer(img_frame.pixels, dtype=numpy.uint8).reshape((240, 320, 3))
        img_data = torch.as_tensor(img_data).permute(2, 0, 1)  # <- fixed
        return img_data.unsqueeze(0) / 255.0

    def act(self):
        img = self._get_image()
        if img is None:
            return None
        with torch.no_grad():
            heatmaps = self.net(img)
        h, w = heatmaps.shape[-2:]
        pooled = nn.functional.avg_pool2d(heatmaps[:, 1:], kernel_size=(h // 10, w // 10))
        log, leaves = pooled[0, 0], pooled[0, 1]
        target = log if "log" in self.blocks else leaves
        if target.max() > 0.1:
            idx = torch.argmax(target)
            return divmod(idx.item(), target.shape[1])
        return None
