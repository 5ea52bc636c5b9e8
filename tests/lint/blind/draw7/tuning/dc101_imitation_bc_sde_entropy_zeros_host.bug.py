# devcheck bug corpus: DC101
# From: https://github.com/HumanCompatibleAI/imitation/issues/870
# Behavior cloning's loss uses the policy's entropy, but a policy with gSDE
# (use_sde=True) returns None for it; the loss then stands in th.zeros(1),
# made on the CPU, and adds it to the negative log-likelihood and L2 terms
# that live on the policy's CUDA device.
# Written for devcheck's tests after the thread; not the project's code.
import dataclasses

import gymnasium as gym
import numpy as np
import torch as th
from stable_baselines3.common.policies import ActorCriticPolicy


@dataclasses.dataclass(frozen=True)
class BehaviorCloningLossCalculator:
    ent_weight: float
    l2_weight: float

    def __call__(self, policy, obs, acts):
        _, log_prob, entropy = policy.evaluate_actions(obs, acts)
        prob_true_act = th.exp(log_prob).mean()
        log_prob = log_prob.mean()
        entropy = entropy.mean() if entropy is not None else None
        l2_norm = sum(th.sum(th.square(w)) for w in policy.parameters()) / 2
        ent_loss = -self.ent_weight * (entropy if entropy is not None else th.zeros(1))  # <- bug
        neglogp = -log_prob
        l2_loss = self.l2_weight * l2_norm
        loss = neglogp + ent_loss + l2_loss
        return loss, prob_true_act


class BC:
    def __init__(self, observation_space, action_space, demonstrations, batch_size=32):
        self.policy = ActorCriticPolicy(
            observation_space, action_space, lr_schedule=lambda _: 1e-3, use_sde=True
        ).to(th.device("cuda" if th.cuda.is_available() else "cpu"))
        self.optimizer = th.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.loss_calculator = BehaviorCloningLossCalculator(ent_weight=1e-3, l2_weight=0.0)
        self.demonstrations = demonstrations
        self.batch_size = batch_size

    def train(self, n_epochs=10):
        obs_all, acts_all = self.demonstrations
        for epoch in range(n_epochs):
            order = np.random.permutation(len(obs_all))
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                obs_tensor = th.as_tensor(obs_all[idx], device=self.policy.device)
                acts = th.as_tensor(acts_all[idx], device=self.policy.device)
                loss, prob_true_act = self.loss_calculator(self.policy, obs_tensor, acts)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            print(epoch, float(loss), float(prob_true_act))


def main():
    env = gym.make("Pendulum-v1")
    obs = np.random.randn(1024, *env.observation_space.shape).astype(np.float32)
    acts = np.random.uniform(-2, 2, size=(1024, *env.action_space.shape)).astype(np.float32)
    trainer = BC(env.observation_space, env.action_space, (obs, acts))
    trainer.train(n_epochs=5)


if __name__ == "__main__":
    main()
