# devcheck bug corpus: DC105
# From: https://github.com/open-mmlab/mmaction2/pull/2254
# MMAction2's 3D ResNet backbones initialise from a 2D ImageNet checkpoint by
# inflating its conv kernels along time. The 2D checkpoint was read with
# mmengine's `_load_checkpoint(self.pretrained)`, whose map_location
# defaults to None, so a checkpoint saved from cuda:0 was loaded onto cuda:0
# by every process of a multi-GPU run (memory and a CUDA context on GPU 0
# for each rank). The PR passes map_location='cpu' at each such call.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from mmengine.logging import MMLogger
from mmengine.model import BaseModule
from mmengine.runner.checkpoint import _load_checkpoint


class ResNet3d(BaseModule):
    def __init__(self, depth_channels=(64, 128, 256, 512), pretrained=None, pretrained2d=True):
        super().__init__()
        self.pretrained = pretrained
        self.pretrained2d = pretrained2d
        self.conv1 = nn.Conv3d(3, depth_channels[0], (5, 7, 7), stride=(1, 2, 2), padding=(2, 3, 3), bias=False)
        self.bn1 = nn.BatchNorm3d(depth_channels[0])
        self.layers = nn.ModuleList(
            nn.Conv3d(cin, cout, (3, 3, 3), padding=1, bias=False)
            for cin, cout in zip(depth_channels[:-1], depth_channels[1:]))

    @staticmethod
    def _inflate_conv_params(conv3d, state_dict_2d, module_name_2d, inflated_param_names):
        weight_2d_name = module_name_2d + ".weight"
        conv2d_weight = state_dict_2d[weight_2d_name]
        kernel_t = conv3d.weight.data.shape[2]
        new_weight = conv2d_weight.data.unsqueeze(2).expand_as(conv3d.weight) / kernel_t
        conv3d.weight.data.copy_(new_weight)
        inflated_param_names.append(weight_2d_name)

    def _inflate_weights(self, logger):
        state_dict_r2d = _load_checkpoint(self.pretrained)  # <- bug
        if "state_dict" in state_dict_r2d:
            state_dict_r2d = state_dict_r2d["state_dict"]
        inflated_param_names = []
        if "conv1.weight" in state_dict_r2d:
            self._inflate_conv_params(self.conv1, state_dict_r2d, "conv1", inflated_param_names)
        remaining = set(state_dict_r2d.keys()) - set(inflated_param_names)
        if remaining:
            logger.info(f"These parameters in the 2d checkpoint are not loaded: {remaining}")

    def init_weights(self):
        if self.pretrained2d:
            logger = MMLogger.get_current_instance()
            logger.info(f"load model from: {self.pretrained}")
            self._inflate_weights(logger)
        else:
            super().init_weights()

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x
