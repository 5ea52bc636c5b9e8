# devcheck bug corpus: DC120
# From: https://github.com/chandar-lab/RLHive/pull/83
# A DQN agent was given device='cuda' and moved its observations there, but
# created its Q-network without moving it: "device='cuda' is not working yet".
# The fix moved the network to the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class DQNAgent:
    def __init__(self, obs_dim, act_dim, device="cpu"):
        self._device = torch.device(device)
        self._qnet = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, act_dim)).to(self._device)  # <- fixed
        self._optimizer = torch.optim.Adam(self._qnet.parameters())

    def act(self, observation):
        observation = torch.tensor(observation, dtype=torch.float32, device=self._device)
        qvals = self._qnet(observation)  # <- fixed
        return int(torch.argmax(qvals).item())
