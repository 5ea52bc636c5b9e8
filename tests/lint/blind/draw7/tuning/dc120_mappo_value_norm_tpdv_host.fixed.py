# devcheck bug corpus: DC120
# From: https://github.com/marlbenchmark/on-policy/pull/107
# Fixed: R-MAPPO hands its device to the constructor
# (ValueNorm(1, device=self.device)), so the statistics and tpdv agree and the
# returns are normalized on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class ValueNorm(nn.Module):
    def __init__(self, input_shape, norm_axes=1, beta=0.99999, epsilon=1e-5, device=torch.device("cpu")):
        super().__init__()
        self.norm_axes = norm_axes
        self.epsilon = epsilon
        self.beta = beta
        self.tpdv = dict(dtype=torch.float32, device=device)
        self.running_mean = nn.Parameter(torch.zeros(input_shape), requires_grad=False).to(**self.tpdv)
        self.running_mean_sq = nn.Parameter(torch.zeros(input_shape), requires_grad=False).to(**self.tpdv)
        self.debiasing_term = nn.Parameter(torch.tensor(0.0), requires_grad=False).to(**self.tpdv)

    def running_mean_var(self):
        mean = self.running_mean / self.debiasing_term.clamp(min=self.epsilon)
        mean_sq = self.running_mean_sq / self.debiasing_term.clamp(min=self.epsilon)
        return mean, (mean_sq - mean ** 2).clamp(min=1e-2)

    @torch.no_grad()
    def update(self, input_vector):
        if isinstance(input_vector, np.ndarray):
            input_vector = torch.from_numpy(input_vector)
        input_vector = input_vector.to(**self.tpdv)
        dims = tuple(range(self.norm_axes))
        self.running_mean.mul_(self.beta).add_(input_vector.mean(dim=dims) * (1.0 - self.beta))
        self.running_mean_sq.mul_(self.beta).add_((input_vector ** 2).mean(dim=dims) * (1.0 - self.beta))
        self.debiasing_term.mul_(self.beta).add_(1.0 - self.beta)

    def normalize(self, input_vector):
        if isinstance(input_vector, np.ndarray):
            input_vector = torch.from_numpy(input_vector)
        input_vector = input_vector.to(**self.tpdv)
        mean, var = self.running_mean_var()
        return (input_vector - mean) / torch.sqrt(var)


class Critic(nn.Module):
    def __init__(self, obs_dim, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.net(obs)


class R_MAPPO:
    def __init__(self, critic, device=torch.device("cpu"), use_valuenorm=True):
        self.device = device
        self.tpdv = dict(dtype=torch.float32, device=device)
        self.critic = critic
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=5e-4)
        self.value_normalizer = ValueNorm(1, device=self.device) if use_valuenorm else None  # <- fixed

    def cal_value_loss(self, values, return_batch):
        if self.value_normalizer is not None:
            self.value_normalizer.update(return_batch)
            error = self.value_normalizer.normalize(return_batch) - values
        else:
            error = return_batch - values
        return (error ** 2).mean()

    def ppo_update(self, obs_batch, return_batch):
        obs_batch = torch.as_tensor(obs_batch).to(**self.tpdv)
        return_batch = torch.as_tensor(return_batch).to(**self.tpdv)
        values = self.critic(obs_batch)
        value_loss = self.cal_value_loss(values, return_batch)
        self.critic_optimizer.zero_grad()
        value_loss.backward()
        self.critic_optimizer.step()
        return value_loss.item()


def main():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    critic = Critic(obs_dim=18).to(device)
    trainer = R_MAPPO(critic, device=device)
    for step in range(100):
        obs = np.random.randn(256, 18).astype(np.float32)
        returns = np.random.randn(256, 1).astype(np.float32)
        print(step, trainer.ppo_update(obs, returns))


if __name__ == "__main__":
    main()
