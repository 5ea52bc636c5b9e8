# devcheck bug corpus: DC113
# From: https://github.com/jcwleo/random-network-distillation-pytorch/pull/14
# Fixed: the loop also keeps total_policy_np, each step's
# `policy.cpu().numpy()`, and logs np.vstack of that list.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PolicyValueNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 256), nn.ReLU())
        self.policy = nn.Linear(256, n_actions)
        self.value_ext = nn.Linear(256, 1)
        self.value_int = nn.Linear(256, 1)

    def forward(self, x):
        h = self.body(x)
        return self.policy(h), self.value_ext(h), self.value_int(h)


class RNDAgent:
    def __init__(self, obs_dim, n_actions, use_cuda=False):
        self.device = torch.device("cuda" if use_cuda else "cpu")
        self.model = PolicyValueNet(obs_dim, n_actions).to(self.device)

    def get_action(self, state):
        state = torch.Tensor(state).to(self.device)
        policy, value_ext, value_int = self.model(state)
        action_prob = F.softmax(policy, dim=-1).data.cpu().numpy()
        action = (action_prob.cumsum(axis=1) > np.random.rand(len(action_prob), 1)).argmax(axis=1)
        return action, value_ext.data.cpu().numpy().squeeze(), value_int.data.cpu().numpy().squeeze(), policy.detach()


def main(envs, obs_dim, n_actions, use_cuda, num_step=128):
    agent = RNDAgent(obs_dim, n_actions, use_cuda=use_cuda)
    states = np.stack([env.reset() for env in envs])
    while True:
        total_action, total_ext_values, total_policy, total_policy_np = [], [], [], []  # <- fixed
        for _ in range(num_step):
            actions, value_ext, value_int, policy = agent.get_action(states)
            states = np.stack([env.step(a)[0] for env, a in zip(envs, actions)])
            total_action.append(actions)
            total_ext_values.append(value_ext)
            total_policy.append(policy)
            total_policy_np.append(policy.cpu().numpy())  # <- fixed
        total_logging_policy = np.vstack(total_policy_np)  # <- fixed
        print("max prob", F.softmax(torch.tensor(total_logging_policy), dim=-1).max(1)[0].mean().item())
