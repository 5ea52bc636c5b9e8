# devcheck bug corpus: DC105
# From: https://github.com/lcswillems/rl-starter-files/pull/57
# From: https://github.com/lcswillems/rl-starter-files/commit/e604b36915a13e25ac8a8a912f9a9a15e2d4a170
# The maintainer's version of the PR's fix (commit e604b36): one module-level
# device, chosen by torch.cuda.is_available(), used by the scripts and the
# agent, and get_status loads with map_location=device.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <- fixed


def get_model_dir(model_name):
    return os.path.join(os.environ.get("RL_STORAGE", "storage"), model_name)


def get_status_path(model_dir):
    return os.path.join(model_dir, "status.pt")


def get_status(model_dir):
    return torch.load(get_status_path(model_dir), map_location=device)  # <- fixed


def save_status(status, model_dir):
    os.makedirs(model_dir, exist_ok=True)
    torch.save(status, get_status_path(model_dir))


def get_model_state(model_dir):
    return get_status(model_dir)["model_state"]


class ACModel(nn.Module):
    def __init__(self, obs_size, n_actions):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, n_actions))
        self.critic = nn.Sequential(nn.Linear(obs_size, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.actor(obs)), self.critic(obs).squeeze(1)


class Agent:
    def __init__(self, obs_size, n_actions, model_dir, argmax=False):  # <- fixed
        self.acmodel = ACModel(obs_size, n_actions)
        self.device = device  # <- fixed
        self.argmax = argmax
        self.acmodel.load_state_dict(get_model_state(model_dir))
        self.acmodel.to(self.device)
        self.acmodel.eval()

    def get_action(self, obs):
        obs = torch.tensor(obs, dtype=torch.float, device=self.device).unsqueeze(0)
        with torch.no_grad():
            dist, _ = self.acmodel(obs)
        action = dist.probs.argmax(dim=1) if self.argmax else dist.sample()
        return action.item()


if __name__ == "__main__":
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    agent = Agent(4, 2, get_model_dir("cartpole"), argmax=True)  # <- fixed
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        obs, reward, terminated, truncated, _ = env.step(agent.get_action(obs))
        done = terminated or truncated
