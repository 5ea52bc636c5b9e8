# devcheck bug corpus: DC103
# From: https://github.com/pytorch/examples/issues/165
# The REINFORCE example with policy.cuda(): select_action turned the gym state
# (a NumPy array) into a tensor with torch.from_numpy and called the policy
# with it: the first Linear got a CPU input with CUDA weights.
# Written for devcheck's tests after the thread; not the project's code.
import gym
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.affine2 = nn.Linear(128, 2)

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


policy = Policy()
policy.cuda()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)  # <- bug
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    return action.item()


def main():
    env = gym.make("CartPole-v1")
    state = env.reset()
    for t in range(1000):
        action = select_action(state)
        state, reward, done, _ = env.step(action)
        if done:
            break
