# devcheck bug corpus: DC120
# From: https://github.com/huggingface/lerobot/pull/126
# The policy factory built a policy and returned it without policy.to(device);
# the training script moved every batch to the device and called the policy on
# it. The fix moved the policy in the factory.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ACTPolicy(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Linear(dim, dim)

    def forward(self, batch):
        return {"loss": (self.net(batch["observation"]) - batch["action"]).pow(2).mean()}


def make_policy(cfg):
    policy = ACTPolicy(cfg["dim"])
    return policy


def train(cfg, dataloader):
    device = torch.device(cfg["device"])
    policy = make_policy(cfg)
    optimizer = torch.optim.Adam(policy.parameters())
    for batch in dataloader:
        batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
        output = policy(batch)  # <- bug
        output["loss"].backward()
        optimizer.step()
        optimizer.zero_grad()
