# devcheck bug corpus: DC116
# From: https://github.com/hearai/hearai/pull/34
# The sign-language model's HuBERT transformer block made its output
# projection, nn.Linear, inside forward on every call, sized from the
# flattened hidden state, and ran it on x.cpu(): a new untrained layer each
# step, on the CPU, never in the model's parameters nor moved with the
# Lightning module to the GPU. The fix builds the layer once in __init__,
# computing its input size from the config.
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
        self._num_segments = num_segments

    def forward(self, input: torch.Tensor, **kwargs):
        x = input.reshape(input.shape[0], -1) if len(input.shape) > 2 else input
        x = self.model(x).last_hidden_state
        x = torch.reshape(x, (x.shape[0], -1))
        x = nn.Linear(in_features=x.shape[1], out_features=self._output_features)(x.cpu())  # <- bug
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
