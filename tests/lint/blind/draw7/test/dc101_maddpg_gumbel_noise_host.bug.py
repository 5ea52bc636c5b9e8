# devcheck bug corpus: DC101
# From: https://github.com/shariqiqbal2810/maddpg-pytorch/issues/28
# With --discrete_action and USE_CUDA the policy update draws Gumbel noise
# with a constructor taken from type(logits.data), which is plain torch.Tensor
# on current PyTorch: the noise is made on the CPU and added to CUDA logits.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

USE_CUDA = torch.cuda.is_available()


def onehot_from_logits(logits):
    return (logits == logits.max(1, keepdim=True)[0]).float()


def sample_gumbel(shape, eps=1e-20, tens_type=torch.FloatTensor):
    noise = Variable(tens_type(*shape).uniform_(), requires_grad=False)  # <- bug
    return -torch.log(-torch.log(noise + eps) + eps)


def gumbel_softmax_sample(logits, temperature):
    y = logits + sample_gumbel(logits.shape, tens_type=type(logits.data))  # <- bug
    return F.softmax(y / temperature, dim=1)


def gumbel_softmax(logits, temperature=1.0, hard=False):
    y = gumbel_softmax_sample(logits, temperature)
    if hard:
        y = (onehot_from_logits(y) - y).detach() + y
    return y


class Agent:
    def __init__(self, obs_dim, act_dim):
        self.policy = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, act_dim))
        self.critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 64), nn.ReLU(), nn.Linear(64, 1))
        self.policy_optimizer = torch.optim.Adam(self.policy.parameters(), lr=0.01)


class MADDPG:
    def __init__(self, n_agents, obs_dim, act_dim):
        self.agents = [Agent(obs_dim, act_dim) for _ in range(n_agents)]

    def prep_training(self, device="gpu"):
        for a in self.agents:
            if device == "gpu":
                a.policy = a.policy.cuda()
                a.critic = a.critic.cuda()

    def update(self, obs, agent_i):
        agent = self.agents[agent_i]
        agent.policy_optimizer.zero_grad()
        pol_out = agent.policy(obs[agent_i])
        pol_vf_in = gumbel_softmax(pol_out, hard=True)
        q = agent.critic(torch.cat((obs[agent_i], pol_vf_in), dim=1))
        loss = -q.mean() + (pol_out ** 2).mean() * 1e-3
        loss.backward()
        agent.policy_optimizer.step()


def sample_batch(n_agents, batch, obs_dim, to_gpu):
    obs = [torch.from_numpy(np.random.randn(batch, obs_dim)).float() for _ in range(n_agents)]
    return [o.cuda() for o in obs] if to_gpu else obs


if __name__ == "__main__":
    maddpg = MADDPG(n_agents=3, obs_dim=16, act_dim=5)
    maddpg.prep_training(device="gpu" if USE_CUDA else "cpu")
    for step in range(100):
        obs = sample_batch(3, 1024, 16, to_gpu=USE_CUDA)
        for a_i in range(3):
            maddpg.update(obs, a_i)
