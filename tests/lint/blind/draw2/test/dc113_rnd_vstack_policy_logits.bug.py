# devcheck bug corpus: DC113
# From: https://github.com/jcwleo/random-network-distillation-pytorch/pull/14
# Random network distillation: with UseGPU the agent's networks are on the
# GPU, and get_action returns the policy logits as `policy.detach()`, still
# a CUDA tensor. The rollout loop collected them in total_policy and logged
# np.vstack(total_policy): "TypeError: can't convert CUDA tensor to numpy.
# Use Tensor.cpu() to copy the tensor to host memory first. GPU only
# problem." The pull request keeps a second list of `policy.cpu().numpy()`
# for the log (the CUDA list still goes to training).
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
        total_action, total_ext_values, total_policy = [], [], []
        for _ in range(num_step):
            actions, value_ext, value_int, policy = agent.get_action(states)
            states = np.stack([env.step(a)[0] for env, a in zip(envs, actions)])
            total_action.append(actions)
            total_ext_values.append(value_ext)
            total_policy.append(policy)
        total_logging_policy = np.vstack(total_policy)  # <- bug
        print("max prob", F.softmax(torch.tensor(total_logging_policy), dim=-1).max(1)[0].mean().item())
