# devcheck bug corpus: DC105
# From: https://github.com/PaddlePaddle/PARL/pull/646
# Fixed: restore() takes map_location and passes it to torch.load; a model
# trained on a GPU is restored on a CPU machine with
# map_location=torch.device("cpu").
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

    def restore(self, save_path, model=None, map_location=None):  # <- fixed
        if model is None:
            model = self.alg.model
        checkpoint = torch.load(save_path, map_location=map_location)  # <- fixed
        model.load_state_dict(checkpoint)


if __name__ == "__main__":
    agent = Agent(DQN(AtariModel(act_dim=6)))
    agent.restore("./model.ckpt", map_location=torch.device("cpu"))  # <- fixed
    print(agent.predict([[[[0.0] * 84] * 84] * 4]))
