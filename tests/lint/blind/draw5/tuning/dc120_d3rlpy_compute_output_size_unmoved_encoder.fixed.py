# devcheck bug corpus: DC120
# From: https://github.com/takuseno/d3rlpy/issues/329
# From: https://github.com/takuseno/d3rlpy/commit/98a188f1832adec1014589a06a47bcc46ebdb1cf
# The fix drops the device argument of compute_output_size: the dummy inputs
# are made on the device of the encoder's own parameters, wherever the
# encoder is when it is probed.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Sequence, Tuple

import torch
import torch.nn as nn


class PixelEncoder(nn.Module):
    def __init__(self, observation_shape, feature_size=512):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(observation_shape[0], 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Flatten(),
        )
        self.fc = nn.Linear(64 * 9 * 9, feature_size)

    def forward(self, x):
        return torch.relu(self.fc(self.convs(x)))


class PixelEncoderFactory:
    def create(self, observation_shape):
        return PixelEncoder(observation_shape)


class DiscreteQFunction(nn.Module):
    def __init__(self, encoder, hidden_size, action_size):
        super().__init__()
        self.encoder = encoder
        self.fc = nn.Linear(hidden_size, action_size)

    def forward(self, x):
        return self.fc(self.encoder(x))


def compute_output_size(input_shapes: Sequence[Tuple[int, ...]], encoder: nn.Module) -> int:  # <- fixed
    device = next(encoder.parameters()).device  # <- fixed
    with torch.no_grad():
        inputs = [torch.rand(1, *shape, device=device) for shape in input_shapes]  # <- fixed
        y = encoder(*inputs)  # <- fixed
    return int(y.shape[1])


def create_discrete_q_function(observation_shape, action_size, encoder_factory, device, n_ensembles=1):
    q_funcs = []
    for _ in range(n_ensembles):
        encoder = encoder_factory.create(observation_shape)
        hidden_size = compute_output_size([observation_shape], encoder)  # <- fixed
        q_funcs.append(DiscreteQFunction(encoder, hidden_size, action_size))
    q_func_modules = nn.ModuleList(q_funcs)
    q_func_modules.to(device)
    return q_func_modules


if __name__ == "__main__":
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    q_funcs = create_discrete_q_function((4, 84, 84), 4, PixelEncoderFactory(), device, n_ensembles=2)
    obs = torch.rand(32, 4, 84, 84, device=device)
    print([q(obs).shape for q in q_funcs])
