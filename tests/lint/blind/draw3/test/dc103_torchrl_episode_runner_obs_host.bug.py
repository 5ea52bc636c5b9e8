# devcheck bug corpus: DC103
# From: https://github.com/activatedgeek/torchrl/pull/12
# The problem moved every model of the agent to args.device, but the episode
# runner that collects rollouts built the batch of observations with
# torch.from_numpy from the environments' NumPy observations ("TODO: device
# placement?") and handed it, on the CPU, to the agent's Q-network on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
from copy import deepcopy

import numpy as np
import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, obs):
        return self.net(obs)


class DQNLearner:
    def __init__(self, obs_dim, n_actions, eps=0.1):
        self.q_net = QNet(obs_dim, n_actions)
        self.target_q_net = deepcopy(self.q_net)
        self.n_actions = n_actions
        self.eps = eps

    @property
    def models(self):
        return [self.q_net, self.target_q_net]

    def act(self, obs):
        actions = self.q_net(obs).max(dim=1)[1].cpu().numpy()
        explore = np.random.rand(len(actions)) < self.eps
        actions[explore] = np.random.randint(self.n_actions, size=explore.sum())
        return actions


class MultiEpisodeRunner:
    def __init__(self, envs):
        self.envs = envs
        self._obs = [env.reset() for env in envs]

    def collect(self, learner, steps):
        history = [[] for _ in self.envs]
        for _ in range(steps):
            obs_list = list(self._obs)
            with torch.no_grad():
                batch_obs_tensor = torch.from_numpy(np.array(obs_list)).float()  # <- bug
                action_list = learner.act(batch_obs_tensor)
            for i, (env, obs, action) in enumerate(zip(self.envs, obs_list, action_list)):
                next_obs, reward, done, _ = env.step(action)
                history[i].append((obs, action, reward, next_obs, done))
                self._obs[i] = env.reset() if done else next_obs
        return history


class Problem:
    def __init__(self, args, envs, obs_dim, n_actions):
        self.args = args
        self.agent = DQNLearner(obs_dim, n_actions)
        self.set_agent_to_device(args.device)
        self.runner = MultiEpisodeRunner(envs)

    def set_agent_to_device(self, device):
        for model in self.agent.models:
            model.to(device)

    def run(self, epochs):
        for _ in range(epochs):
            history_list = self.runner.collect(self.agent, steps=self.args.rollout_steps)
            yield history_list
