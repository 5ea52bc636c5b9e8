# devcheck bug corpus: DC111
# From: https://github.com/marlbenchmark/off-policy/pull/12
# The PR's fix wraps the Q heads in nn.ModuleList, so they are registered submodules
# that self.to(device) moves with the rest of the critic.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def to_torch(x):
    return torch.from_numpy(x) if isinstance(x, np.ndarray) else x


def init(module, weight_init, bias_init, gain=1.0):
    weight_init(module.weight.data, gain=gain)
    bias_init(module.bias.data)
    return module


class MLPBase(nn.Module):
    def __init__(self, args, input_dim):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(input_dim), nn.Linear(input_dim, args.hidden_size), nn.ReLU(),
                                 nn.Linear(args.hidden_size, args.hidden_size), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class MADDPG_Critic(nn.Module):
    def __init__(self, args, central_obs_dim, central_act_dim, device, num_q_outs=1):
        super().__init__()
        self.hidden_size = args.hidden_size
        self.device = device
        self.tpdv = dict(dtype=torch.float32, device=device)
        self.mlp = MLPBase(args, central_obs_dim + central_act_dim)
        init_method = [nn.init.xavier_uniform_, nn.init.orthogonal_][args.use_orthogonal]

        def init_(m):
            return init(m, init_method, lambda x: nn.init.constant_(x, 0))

        self.q_outs = nn.ModuleList([init_(nn.Linear(self.hidden_size, 1)) for _ in range(num_q_outs)])  # <- fixed
        self.to(device)

    def forward(self, central_obs, central_act):
        central_obs = to_torch(central_obs).to(**self.tpdv)
        central_act = to_torch(central_act).to(**self.tpdv)
        x = self.mlp(torch.cat([central_obs, central_act], dim=1))
        return [q_out(x) for q_out in self.q_outs]


class MATD3_Critic(MADDPG_Critic):
    def __init__(self, args, central_obs_dim, central_act_dim, device):
        super().__init__(args, central_obs_dim, central_act_dim, device, num_q_outs=2)


if __name__ == "__main__":
    class Args:
        hidden_size = 64
        use_orthogonal = True

    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    critic = MATD3_Critic(Args(), central_obs_dim=54, central_act_dim=15, device=device)
    obs = np.random.randn(32, 54).astype(np.float32)
    act = np.random.randn(32, 15).astype(np.float32)
    q1, q2 = critic(obs, act)
    print(q1.shape, q2.shape)
