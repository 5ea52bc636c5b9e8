# devcheck bug corpus: DC103
# From: https://github.com/DeepRLChinese/DeepRL-Chinese/issues/4
# A CartPole DQN: main moves the Q networks to the chosen device, but the
# training loop hands the Q network the environment's NumPy state through
# torch.from_numpy without moving it, and builds the replay batches with
# torch.tensor on the CPU before computing the loss with them.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from dataclasses import dataclass, field

import gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, dim_state, num_action):
        super().__init__()
        self.fc1 = nn.Linear(dim_state, 64)
        self.fc2 = nn.Linear(64, num_action)

    def forward(self, state):
        return self.fc2(F.relu(self.fc1(state)))


class DQN:
    def __init__(self, dim_state, num_action, discount=0.9):
        self.discount = discount
        self.Q = QNet(dim_state, num_action)
        self.target_Q = QNet(dim_state, num_action)
        self.target_Q.load_state_dict(self.Q.state_dict())

    def get_action(self, state):
        return self.Q(state).argmax()

    def compute_loss(self, s, a, r, d, ns):
        qvals = self.Q(s).gather(1, a.unsqueeze(1)).squeeze()
        next_qvals, _ = self.target_Q(ns).detach().max(dim=1)
        return F.mse_loss(r + self.discount * next_qvals * (1 - d), qvals)


@dataclass
class ReplayBuffer:
    maxsize: int
    items: list = field(default_factory=list)

    def push(self, *transition):
        self.items = (self.items + [transition])[-self.maxsize:]

    def sample(self, n):
        picked = [self.items[i] for i in np.random.randint(len(self.items), size=n)]
        return [list(col) for col in zip(*picked)]


def train(args, env, agent):
    buffer = ReplayBuffer(10_000)
    optimizer = torch.optim.Adam(agent.Q.parameters(), lr=args.lr)
    state, _ = env.reset(seed=args.seed)
    epsilon = 1.0
    for i in range(args.max_steps):
        if np.random.rand() < epsilon or i < args.warmup_steps:
            action = env.action_space.sample()
        else:
            action = agent.get_action(torch.from_numpy(state)).item()  # <- bug
        next_state, reward, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
        buffer.push(state, action, reward, done, next_state)
        state = env.reset()[0] if done else next_state
        epsilon = max(epsilon - 1e-3, 0.1) if done else epsilon
        if i > args.warmup_steps:
            bs, ba, br, bd, bns = buffer.sample(args.batch_size)
            bs = torch.tensor(np.array(bs), dtype=torch.float32)  # <- bug
            ba = torch.tensor(ba, dtype=torch.long)  # <- bug
            br = torch.tensor(br, dtype=torch.float32)  # <- bug
            bd = torch.tensor(bd, dtype=torch.float32)  # <- bug
            bns = torch.tensor(np.array(bns), dtype=torch.float32)  # <- bug
            loss = agent.compute_loss(bs, ba, br, bd, bns)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            for tp, p in zip(agent.target_Q.parameters(), agent.Q.parameters()):
                tp.data.copy_(tp.data * 0.99 + p.data * 0.01)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", default=1e-3, type=float)
    parser.add_argument("--batch_size", default=32, type=int)
    parser.add_argument("--max_steps", default=100_000, type=int)
    parser.add_argument("--warmup_steps", default=10_000, type=int)
    parser.add_argument("--seed", default=42, type=int)
    parser.add_argument("--no_cuda", action="store_true")
    args = parser.parse_args()
    args.device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")
    env = gym.make("CartPole-v1")
    agent = DQN(dim_state=4, num_action=2, discount=0.99)
    agent.Q.to(args.device)
    agent.target_Q.to(args.device)
    train(args, env, agent)


if __name__ == "__main__":
    main()
