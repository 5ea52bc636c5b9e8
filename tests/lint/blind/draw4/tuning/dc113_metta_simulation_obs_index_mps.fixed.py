# devcheck bug corpus: DC113
# From: https://github.com/Metta-AI/metta/pull/2268
# The fix proposed in the PR (open, commit 40b30da, "Make same device")
# copies the index tensor to the CPU before it indexes the NumPy
# observations.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def obs_to_td(obs, device):
    return {"env_obs": torch.as_tensor(obs, device=device).float()}


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))

    def forward(self, td):
        td["actions"] = self.net(td["env_obs"]).argmax(dim=-1, keepdim=True)
        return td


class Simulation:
    def __init__(self, vecenv, policy, num_envs, agents_per_env, policy_agents_pct=1.0, device="cpu"):
        self._vecenv = vecenv
        self._device = device
        self._num_envs = num_envs
        self._policy = policy.to(device)
        idx_matrix = torch.arange(agents_per_env * num_envs, device=self._device).reshape(num_envs, agents_per_env)
        self._policy_agents_per_env = max(1, int(agents_per_env * policy_agents_pct))
        self._policy_idxs = idx_matrix[:, : self._policy_agents_per_env].reshape(-1)

    def start_simulation(self):
        self._obs, _ = self._vecenv.reset()

    def generate_actions(self):
        with torch.no_grad():
            my_obs = self._obs[self._policy_idxs.cpu()]  # <- fixed
            td = obs_to_td(my_obs, self._device)
            self._policy(td)
            actions = td["actions"]
        return actions.cpu().numpy().astype(np.int32)

    def step_simulation(self, actions_np):
        self._obs, rewards, terminals, truncations, infos = self._vecenv.step(actions_np)
        return rewards


class RandomVecEnv:
    def __init__(self, num_envs, agents_per_env, obs_shape=(11, 11, 3)):
        self.n = num_envs * agents_per_env
        self.obs_shape = obs_shape

    def reset(self):
        return np.random.rand(self.n, *self.obs_shape).astype(np.float32), {}

    def step(self, actions):
        obs, _ = self.reset()
        return obs, np.zeros(self.n), np.zeros(self.n, bool), np.zeros(self.n, bool), {}


if __name__ == "__main__":
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    sim = Simulation(RandomVecEnv(4, 2), Policy(11 * 11 * 3, 5), num_envs=4, agents_per_env=2, device=device)
    sim.start_simulation()
    for _ in range(10):
        sim.step_simulation(sim.generate_actions())
