# devcheck bug corpus: DC103
# From: https://github.com/ray-project/ray/pull/24880
# RLlib's Curiosity exploration moves its feature, inverse and forward nets to
# the policy's device, but postprocess_trajectory feeds them the sample
# batch's NumPy observations and actions through torch.from_numpy, on the
# CPU: PPO with curiosity on a GPU machine fails with "Expected all tensors
# to be on the same device".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def fc_net(dims):
    layers = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class Curiosity:
    def __init__(self, obs_dim, num_actions, device, feature_dim=32, eta=1.0, lr=1e-3):
        self.device = device
        self.num_actions = num_actions
        self.eta = eta
        self.lr = lr
        self.feature_net = fc_net([obs_dim, 64, feature_dim])
        self.inverse_net = fc_net([2 * feature_dim, 64, num_actions])
        self.forward_net = fc_net([feature_dim + num_actions, 64, feature_dim])

    def get_exploration_optimizer(self, optimizers):
        self.feature_net = self.feature_net.to(self.device)
        self.inverse_net = self.inverse_net.to(self.device)
        self.forward_net = self.forward_net.to(self.device)
        params = list(self.feature_net.parameters()) + list(self.inverse_net.parameters()) + list(self.forward_net.parameters())
        return optimizers + [torch.optim.Adam(params, lr=self.lr)]

    def postprocess_trajectory(self, sample_batch):
        batch_size = sample_batch["obs"].shape[0]
        phis = self.feature_net(
            torch.cat(
                [
                    torch.from_numpy(sample_batch["obs"]),  # <- bug
                    torch.from_numpy(sample_batch["new_obs"]),  # <- bug
                ]
            )
        )
        phi, next_phi = phis[:batch_size], phis[batch_size:]
        actions = F.one_hot(torch.from_numpy(sample_batch["actions"]).long(), num_classes=self.num_actions).float()  # <- bug
        predicted_next_phi = self.forward_net(torch.cat([phi.detach(), actions], dim=-1))
        forward_l2 = 0.5 * torch.sum(torch.pow(predicted_next_phi - next_phi, 2.0), dim=-1)
        sample_batch["rewards"] = sample_batch["rewards"] + self.eta * forward_l2.detach().cpu().numpy()
        return sample_batch


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    policy_net = fc_net([8, 64, 4]).to(device)
    curiosity = Curiosity(obs_dim=8, num_actions=4, device=device)
    optimizers = curiosity.get_exploration_optimizer([torch.optim.Adam(policy_net.parameters())])
    batch = {
        "obs": np.random.randn(16, 8).astype(np.float32),
        "new_obs": np.random.randn(16, 8).astype(np.float32),
        "actions": np.random.randint(0, 4, size=16),
        "rewards": np.zeros(16, dtype=np.float32),
    }
    print(curiosity.postprocess_trajectory(batch)["rewards"][:4])
