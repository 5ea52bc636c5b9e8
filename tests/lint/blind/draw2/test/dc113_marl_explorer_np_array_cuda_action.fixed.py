# devcheck bug corpus: DC113
# From: https://github.com/floracharbo/MARL_local_electricity/pull/65
# Fixed: the explorer converts the action with np.array(action.cpu()) when it
# is a tensor, and hands that to the environment's step.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch as th
import torch.nn as nn


class AgentNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(obs_dim, hidden)
        self.fc2 = nn.Linear(hidden, n_actions)

    def forward(self, obs):
        return th.tanh(self.fc2(th.relu(self.fc1(obs))))


class BasicMAC:
    def __init__(self, obs_dim, n_actions):
        self.agent = AgentNet(obs_dim, n_actions)

    def cuda(self):
        self.agent.cuda()

    def select_actions(self, obs, test_mode=False):
        obs = obs.to(next(self.agent.parameters()).device)
        actions = self.agent(obs)
        if not test_mode:
            actions = actions + 0.1 * th.randn_like(actions)
        return actions.detach()


class ActionSelector:
    def __init__(self, mac):
        self.mac = mac

    def select_action(self, state, evaluation):
        obs = th.tensor(state, dtype=th.float32)
        return self.mac.select_actions(obs, test_mode=evaluation)


class Explorer:
    def __init__(self, env, mac):
        self.env = env
        self.action_selector = ActionSelector(mac)

    def get_one_episode(self, state, evaluation):
        done, rewards = False, []
        while not done:
            action = self.action_selector.select_action(state, evaluation)
            action_ = np.array(action.cpu()) if th.is_tensor(action) else action  # <- fixed
            state, done, reward = self.env.step(action_, evaluation=evaluation)  # <- fixed
            rewards.append(reward)
        return rewards


def run(env, obs_dim, n_actions, n_epochs):
    mac = BasicMAC(obs_dim, n_actions)
    if th.cuda.is_available():
        mac.cuda()
    explorer = Explorer(env, mac)
    for _ in range(n_epochs):
        explorer.get_one_episode(env.reset(), evaluation=False)
