# devcheck bug corpus: DC101
# From: https://github.com/huawei-noah/trustworthyAI/issues/50
# From: https://github.com/huawei-noah/trustworthyAI/commit/12f1cb20d4dd96f87a0d3c7729bcf973b5b769a3
# gCastle's RL causal-discovery actor on a GPU: the REINFORCE moving baseline
# starts as a one-element tensor built on the host, and the first update
# blends it with the mean reward, which is on the GPU; the move to the GPU
# after that line never gets a chance to run. Fixed by building the baseline
# on the actor's device.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, hidden_dim):
        super().__init__()
        self.ff = nn.Linear(hidden_dim, 1)
        self.predictions = None

    def forward(self, encoder_output):
        self.predictions = self.ff(encoder_output.mean(1)).squeeze(-1)
        return self.predictions


class Actor(object):
    def __init__(self, config):
        self.config = config
        self.alpha = config.alpha
        self.device = (torch.device("cuda", config.device_ids)  # <- fixed
                       if config.device_type == "gpu" else torch.device("cpu"))  # <- fixed
        # moving baseline for REINFORCE
        self.avg_baseline = torch.tensor([config.init_baseline], device=self.device)  # <- fixed
        self.encoder = nn.Linear(config.input_dimension, config.hidden_dim)
        self.critic = Critic(config.hidden_dim)
        if config.device_type == "gpu":
            self.encoder.cuda(config.device_ids)
            self.critic.cuda(config.device_ids)
        self.opt = torch.optim.Adam(
            list(self.encoder.parameters()) + list(self.critic.parameters()),
            lr=1e-3)
        self.criterion = nn.MSELoss()

    def build_permutation(self, inputs):
        self.encoder_output = self.encoder(inputs)
        self.log_softmax = self.encoder_output.mean(dim=(1, 2))
        self.critic(self.encoder_output)

    def build_reward(self, reward_):
        self.reward = reward_
        self.build_optim()

    def build_optim(self):
        reward_mean = torch.mean(self.reward)
        self.avg_baseline = self.alpha * self.avg_baseline + (1.0 - self.alpha) * reward_mean
        self.avg_baseline = self.avg_baseline.to(self.device)  # <- fixed
        reward_baseline = (self.reward - self.avg_baseline
                           - self.critic.predictions).detach()
        loss1 = torch.mean(reward_baseline * self.log_softmax, 0)
        loss2 = self.criterion(self.reward - self.avg_baseline,
                               self.critic.predictions)
        self.opt.zero_grad()
        (loss1 + loss2).backward()
        self.opt.step()


class Config:
    batch_size = 8
    max_length = 5
    input_dimension = 4
    hidden_dim = 16
    alpha = 0.99
    init_baseline = -1.0
    device_type = "gpu" if torch.cuda.is_available() else "cpu"
    device_ids = 0


def train(config, data, epochs=3):
    actor = Actor(config)
    for _ in range(epochs):
        idx = np.random.randint(0, data.shape[0],
                                size=(config.batch_size, config.max_length))
        inputs = torch.from_numpy(data[idx]).float()
        if config.device_type == "gpu":
            inputs = inputs.cuda(config.device_ids)
        actor.build_permutation(inputs)
        graphs = actor.encoder_output.cpu().detach().numpy()
        reward_feed = -np.abs(graphs).sum(axis=(1, 2))
        if config.device_type == "gpu":
            actor.build_reward(-torch.from_numpy(reward_feed).float().cuda(config.device_ids))
        else:
            actor.build_reward(-torch.from_numpy(reward_feed).float())
    return actor


if __name__ == "__main__":
    train(Config(), np.random.rand(100, 4))
