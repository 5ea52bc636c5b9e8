# devcheck bug corpus: DC101
# From: https://github.com/vwxyzjn/cleanrl/pull/396
# From: https://github.com/vwxyzjn/cleanrl/commit/3f37fa8b9dd37e9786517e57b5d3709b04a8e940
# The fix moves the RPO noise to the script's device (.to(device) after
# uniform_) before it is added to the action mean.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.normal import Normal


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, act_dim, rpo_alpha):
        super().__init__()
        self.rpo_alpha = rpo_alpha
        self.critic = nn.Sequential(layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(), layer_init(nn.Linear(64, 1), std=1.0))
        self.actor_mean = nn.Sequential(layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(), layer_init(nn.Linear(64, act_dim), std=0.01))
        self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

    def get_action_and_value(self, x, action=None):
        action_mean = self.actor_mean(x)
        action_std = torch.exp(self.actor_logstd.expand_as(action_mean))
        probs = Normal(action_mean, action_std)
        if action is None:
            action = probs.sample()
        else:
            z = torch.FloatTensor(action_mean.shape).uniform_(-self.rpo_alpha, self.rpo_alpha).to(device)  # <- fixed
            action_mean = action_mean + z
            probs = Normal(action_mean, action_std)
        return action, probs.log_prob(action).sum(1), probs.entropy().sum(1), self.critic(x)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", type=bool, default=True)
    parser.add_argument("--rpo-alpha", type=float, default=0.5)
    parser.add_argument("--num-steps", type=int, default=64)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
    agent = Agent(obs_dim=11, act_dim=3, rpo_alpha=args.rpo_alpha).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    obs = torch.zeros((args.num_steps, 11)).to(device)
    actions = torch.zeros((args.num_steps, 3)).to(device)
    logprobs = torch.zeros(args.num_steps).to(device)
    next_obs = torch.Tensor(np.random.randn(11)).to(device)
    for step in range(args.num_steps):
        obs[step] = next_obs
        with torch.no_grad():
            action, logprob, _, _ = agent.get_action_and_value(next_obs.unsqueeze(0))
        actions[step] = action[0]
        logprobs[step] = logprob[0]
        next_obs = torch.Tensor(np.random.randn(11)).to(device)
    _, newlogprob, entropy, newvalue = agent.get_action_and_value(obs, actions)
    ratio = (newlogprob - logprobs).exp()
    loss = -ratio.mean() - 0.01 * entropy.mean() + 0.5 * newvalue.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
