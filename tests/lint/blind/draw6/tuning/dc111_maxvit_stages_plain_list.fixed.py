# devcheck bug corpus: DC111
# From: https://github.com/ChristophReich1996/MaxViT/issues/9
# From: https://github.com/ChristophReich1996/MaxViT/commit/0ce13879cd031b22d6d2cf4d349b9d017329398a
# The fix (commit 0ce1387, "Fix device problem") collects the stages in a local
# list and registers them as self.stages = nn.ModuleList(stages), so moving the
# network moves them and their parameters are trained.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Tuple

import torch
import torch.nn as nn


class MBConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, downscale=False, act_layer=nn.GELU, norm_layer=nn.BatchNorm2d):
        super().__init__()
        stride = 2 if downscale else 1
        self.main_path = nn.Sequential(
            norm_layer(in_channels),
            nn.Conv2d(in_channels, out_channels, 1),
            act_layer(),
            nn.Conv2d(out_channels, out_channels, 3, stride=stride, padding=1, groups=out_channels),
            norm_layer(out_channels),
            act_layer(),
            nn.Conv2d(out_channels, out_channels, 1),
        )
        self.skip_path = nn.Sequential(nn.MaxPool2d(2, 2), nn.Conv2d(in_channels, out_channels, 1)) \
            if downscale else nn.Identity()

    def forward(self, input):
        return self.main_path(input) + self.skip_path(input)


class MaxViTStage(nn.Module):
    def __init__(self, depth, in_channels, out_channels, act_layer=nn.GELU, norm_layer=nn.BatchNorm2d):
        super().__init__()
        self.blocks = nn.Sequential(*[
            MBConvBlock(in_channels if index == 0 else out_channels, out_channels,
                        downscale=index == 0, act_layer=act_layer, norm_layer=norm_layer)
            for index in range(depth)
        ])

    def forward(self, input):
        return self.blocks(input)


class MaxViT(nn.Module):
    def __init__(self, in_channels=3, depths: Tuple[int, ...] = (2, 2, 5, 2),
                 channels: Tuple[int, ...] = (64, 128, 256, 512), embed_dim=64, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, embed_dim, 3, stride=2, padding=1), nn.GELU(),
            nn.Conv2d(embed_dim, embed_dim, 3, stride=1, padding=1), nn.GELU(),
        )
        stages = []  # <- fixed
        for index, (depth, channel) in enumerate(zip(depths, channels)):
            stages.append(  # <- fixed
                MaxViTStage(depth, embed_dim if index == 0 else channels[index - 1], channel)
            )
        self.stages = nn.ModuleList(stages)  # <- fixed
        self.head = nn.Linear(channels[-1], num_classes)

    def forward_features(self, input):
        output = self.stem(input)
        for stage in self.stages:
            output = stage(output)
        return output

    def forward(self, input):
        return self.head(self.forward_features(input).mean(dim=(2, 3)))


if __name__ == "__main__":
    network = MaxViT(num_classes=365).cuda()
    optimizer = torch.optim.AdamW(network.parameters(), lr=1e-3)
    output = network(torch.rand(1, 3, 224, 224).cuda())
    print(output.shape)
