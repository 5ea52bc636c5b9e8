# kind: plain-attribute
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/marlbenchmark/off-policy/pull/12
# source: https://github.com/pytorch/pytorch/issues/15005
# fix: change [] to nn.ModuleList in the critic, so that self.to(device) moves the output heads
"""A MADDPG critic with one Q head per agent; the heads are built in a plain
list comprehension, so the parameters of those Linear layers stay on the CPU."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def init_(m):
    nn.init.orthogonal_(m.weight)
    nn.init.zeros_(m.bias)
    return m


class MDDPGCritic(nn.Module):
    def __init__(self, input_dim, hidden_size, num_q_outs, device):
        super().__init__()
        self.mlp = nn.Sequential(init_(nn.Linear(input_dim, hidden_size)), nn.ReLU(),
                                 init_(nn.Linear(hidden_size, hidden_size)), nn.ReLU())
        self.q_outs = nn.ModuleList([init_(nn.Linear(hidden_size, 1)) for _ in range(num_q_outs)])
        self.to(device)

    def forward(self, central_obs, central_act):
        x = self.mlp(torch.cat([central_obs, central_act], dim=1))
        return [q_out(x) for q_out in self.q_outs]


critic = MDDPGCritic(input_dim=10, hidden_size=16, num_q_outs=2, device=device)
optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
obs, act, target = torch.randn(8, 7), torch.randn(8, 3), torch.randn(8, 1)
for step in range(3):
    qs = critic(obs.to(device), act.to(device))
    loss = sum(((q - target.to(device)) ** 2).mean() for q in qs)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("critic loss", round(loss.item(), 4))
