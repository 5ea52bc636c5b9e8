# devcheck bug corpus: DC113
# From: https://github.com/LucasAlegre/morl-baselines/pull/185
# With prioritized replay, update() passed the sampled indices (a tensor on the
# GPU) to the buffer's update_priorities, which calls np.unique on them: a
# TypeError for a CUDA tensor. The fix moved the indices to the CPU as was done
# for the priorities.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


class PrioritizedReplayBuffer:
    def __init__(self, size):
        self.priorities = np.ones(size)

    def update_priorities(self, idxes, priorities):
        idxes = np.unique(idxes)  # <- fixed
        self.priorities[idxes] = priorities[: len(idxes)]


def update(agent, replay_buffer, batch, device):
    idxes = torch.as_tensor(batch.idxes, device=device)
    td_error = agent.q_net(batch.obs.to(device)) - batch.target.to(device)
    per = td_error.abs().mean(1)
    priority = per.detach().cpu().numpy().flatten()
    replay_buffer.update_priorities(idxes.cpu().numpy(), priority)  # <- fixed
