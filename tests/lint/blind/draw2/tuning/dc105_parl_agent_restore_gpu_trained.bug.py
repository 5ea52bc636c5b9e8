# devcheck bug corpus: DC105
# From: https://github.com/PaddlePaddle/PARL/pull/646
# The reinforcement-learning library's PyTorch Agent saves its model's state
# dict with torch.save and restores it with torch.load(save_path) and no
# map_location: a policy trained on a GPU could not be restored on a machine
# without one. The pull request gives restore() a map_location argument,
# passed on to torch.load, for loading a GPU-trained model on the CPU.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class AtariModel(nn.Module):
    def __init__(self, act_dim):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(4, 32, 8, stride=4), nn.ReLU(), nn.Flatten())
        self.fc = nn.Linear(32 * 20 * 20, act_dim)

    def forward(self, obs):
        return self.fc(self.conv(obs))


class DQN:
    def __init__(self, model, lr=1e-4):
        self.model = model.to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)


class Agent:
    def __init__(self, algorithm):
        self.alg = algorithm

    def predict(self, obs):
        obs = torch.tensor(obs, dtype=torch.float32, device=device)
        return self.alg.model(obs).argmax(-1).item()

    def save(self, save_path, model=None):
        if model is None:
            model = self.alg.model
        dirname = os.path.dirname(save_path)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname)
        torch.save(model.state_dict(), save_path)

    def restore(self, save_path, model=None):
        if model is None:
            model = self.alg.model
        checkpoint = torch.load(save_path)  # <- bug
        model.load_state_dict(checkpoint)


if __name__ == "__main__":
    agent = Agent(DQN(AtariModel(act_dim=6)))
    agent.restore("./model.ckpt")
    print(agent.predict([[[[0.0] * 84] * 84] * 4]))
