# devcheck bug corpus: DC117
# From: https://github.com/pfnet/pfrl/pull/55
# The fix unwraps a DataParallel or DistributedDataParallel attribute to its
# .module before saving its state_dict (and before loading one into it), so
# the files hold the bare model's keys whatever wrapper trained it.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class AttributeSavingMixin:
    saved_attributes = ()

    def save(self, dirname):
        os.makedirs(dirname, exist_ok=True)
        for attr in self.saved_attributes:
            attr_value = getattr(self, attr)
            if attr_value is None:
                continue
            if isinstance(attr_value, (DistributedDataParallel, nn.DataParallel)):  # <- fixed
                attr_value = attr_value.module  # <- fixed
            torch.save(attr_value.state_dict(), os.path.join(dirname, "{}.pt".format(attr)))  # <- fixed

    def load(self, dirname):
        map_location = torch.device("cpu") if not torch.cuda.is_available() else None
        for attr in self.saved_attributes:
            attr_value = getattr(self, attr)
            if attr_value is None:
                continue
            if isinstance(attr_value, (DistributedDataParallel, nn.DataParallel)):  # <- fixed
                attr_value = attr_value.module  # <- fixed
            attr_value.load_state_dict(
                torch.load(os.path.join(dirname, "{}.pt".format(attr)), map_location)
            )


class DQN(AttributeSavingMixin):
    saved_attributes = ("model", "optimizer")

    def __init__(self, q_function, optimizer, gamma=0.99):
        self.model = q_function
        self.optimizer = optimizer
        self.gamma = gamma

    def act(self, obs):
        with torch.no_grad():
            return int(self.model(obs.unsqueeze(0)).argmax(-1))


def make_q_func(obs_size, n_actions):
    return nn.Sequential(nn.Linear(obs_size, 64), nn.ReLU(), nn.Linear(64, n_actions))


def train(rank, outdir, obs_size=4, n_actions=2):
    dist.init_process_group("nccl", rank=rank, world_size=torch.cuda.device_count())
    torch.cuda.set_device(rank)
    q_func = make_q_func(obs_size, n_actions).cuda(rank)
    q_func = DistributedDataParallel(q_func, device_ids=[rank])
    opt = torch.optim.Adam(q_func.parameters(), lr=1e-3)
    agent = DQN(q_func, opt)
    if rank == 0:
        agent.save(outdir)


def evaluate(outdir, obs_size=4, n_actions=2):
    q_func = make_q_func(obs_size, n_actions)
    agent = DQN(q_func, torch.optim.Adam(q_func.parameters(), lr=1e-3))
    agent.load(outdir)
    return agent.act(torch.zeros(obs_size))
