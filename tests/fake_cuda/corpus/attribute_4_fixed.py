# kind: plain-attribute
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2623
# source: https://github.com/pytorch/pytorch/issues/8017
# fix: keep the convolutions in an nn.ModuleList (or nn.Sequential) so they are registered submodules
"""A raw-waveform classifier with a Python list of Conv1d layers and three
fully connected layers; only the fully connected ones reach the GPU."""
import math

import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Conv1DClassifier(nn.Module):
    def __init__(self, num_classes, encoder_out_channels=16, kernel=4):
        super().__init__()
        n_layers = int(math.log2(encoder_out_channels))
        self.conv_layers = nn.ModuleList()
        for layer_idx in range(n_layers):
            self.conv_layers.append(nn.Conv1d(2 ** layer_idx, 2 ** (layer_idx + 1), kernel_size=kernel,
                                              stride=kernel))
        self.fc1 = nn.Linear(encoder_out_channels, 8)
        self.fc2 = nn.Linear(8, num_classes)

    def forward(self, x):
        for conv_layer in self.conv_layers:
            x = torch.relu(conv_layer(x))
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


model = Conv1DClassifier(num_classes=3).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
waves = torch.randn(4, 1, 256)
labels = torch.tensor([0, 1, 2, 1])
for step in range(3):
    loss = nn.functional.cross_entropy(model(waves.to(device)), labels.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
