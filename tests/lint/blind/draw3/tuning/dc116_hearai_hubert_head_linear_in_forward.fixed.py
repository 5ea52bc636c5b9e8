# devcheck bug corpus: DC116
# From: https://github.com/hearai/hearai/pull/34
# Fixed: the projection is built once in __init__ (its input size computed
# from the HuBERT config's convolutions) and applied to x in forward.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List

import numpy as np
import torch
import torch.nn as nn
from transformers import HubertConfig, HubertModel


class HubertTransformer(nn.Module):
    def __init__(self, input_features: int = 2048, output_features: int = 512, num_segments: int = 10):
        super().__init__()
        configuration = HubertConfig()
        self.model = HubertModel(configuration)
        self.model.feature_extractor._requires_grad = False
        self._input_features = input_features
        self._output_features = output_features
        hidden_features = self.find_hidden_features_number(input_size=input_features * num_segments,  # <- fixed
                                                           hidden_size=configuration.hidden_size,  # <- fixed
                                                           kernels=configuration.conv_kernel,  # <- fixed
                                                           strides=configuration.conv_stride)  # <- fixed
        self._linear = nn.Linear(in_features=hidden_features, out_features=self._output_features)  # <- fixed

    def forward(self, input: torch.Tensor, **kwargs):
        x = input.reshape(input.shape[0], -1) if len(input.shape) > 2 else input
        x = self.model(x).last_hidden_state
        x = torch.reshape(x, (x.shape[0], -1))
        x = self._linear(x)  # <- fixed
        return x

    def find_hidden_features_number(self, input_size: int, hidden_size: int, kernels: List, strides: List):
        size = input_size
        for kernel, stride in zip(kernels, strides):
            size = (size - kernel) / stride + 1
        return int(np.floor(size)) * hidden_size


class GlossHead(nn.Module):
    def __init__(self, transformer, num_classes):
        super().__init__()
        self.transformer = transformer
        self.cls_head = nn.Linear(transformer._output_features, num_classes)

    def forward(self, x):
        return self.cls_head(self.transformer(x))
