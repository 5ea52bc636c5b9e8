# devcheck bug corpus: DC116
# From: https://github.com/DLR-RM/stable-baselines3/issues/491
# A custom features extractor for a multi-input DQN policy built its last layers
# with nn.Sequential(nn.Linear(...)) inside forward, once the concatenated size
# was known: new CPU layers on every call, never trained, and a device mismatch
# on the GPU. The fix built them in __init__.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class CustomCombinedExtractor(nn.Module):
    def __init__(self, n_image, n_vector, features_dim):
        super().__init__()
        self.features_dim = features_dim
        self.image = nn.Linear(n_image, 64)
        self.vector = nn.Linear(n_vector, 16)
        self.last_layer = nn.Sequential(nn.Linear(80, features_dim * 2), nn.Tanh(), nn.Linear(features_dim * 2, features_dim), nn.Tanh())  # <- fixed

    def forward(self, observations):
        cat = torch.cat([self.image(observations["image"]), self.vector(observations["vector"])], dim=1)
        return self.last_layer(cat)
