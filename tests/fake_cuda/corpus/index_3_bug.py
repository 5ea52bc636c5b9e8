# kind: index
# source: https://github.com/HumanCompatibleAI/imitation/issues/843
# fix: send the actions to the device of the policy's logits before log_prob (value.to(log_pmf.device) in the report)
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_gather)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA_gather)
# sanitizer: mismatch
"""Behaviour cloning from demonstrations: observations are moved to the
policy's device, the expert actions (from a replay buffer) are not, and the
categorical log-likelihood gathers the logits at those actions."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

rng = np.random.default_rng(0)
demo_obs = rng.normal(size=(32, 4)).astype(np.float32)
demo_acts = rng.integers(0, 3, size=32)

policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 3)).to(device)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
for batch in range(2):
    sl = slice(batch * 16, (batch + 1) * 16)
    obs = torch.as_tensor(demo_obs[sl], device=device)
    acts = torch.as_tensor(demo_acts[sl])  # BUG:stray
    dist = torch.distributions.Categorical(logits=policy(obs))
    log_prob = dist.log_prob(acts)  # BUG:op
    loss = -log_prob.mean() - 1e-3 * dist.entropy().mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("neglogp", round(loss.item(), 4))
