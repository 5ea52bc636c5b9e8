# devcheck bug corpus: DC101
# From: https://github.com/pytorch/tutorials/pull/39
# The reinforcement-learning tutorial's optimize_model: next_state_values was
# torch.zeros(BATCH_SIZE) on the host, filled through a mask with the target
# network's output on the GPU and combined with the rewards: the tutorial failed
# under CUDA until the tensors were made on the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F

BATCH_SIZE = 128
GAMMA = 0.999
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def optimize_model(policy_net, target_net, memory, optimizer):
    batch = memory.sample(BATCH_SIZE)
    non_final_mask = torch.tensor([s is not None for s in batch.next_state], device=device, dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)  # <- bug
    next_state_values[non_final_mask] = target_net(non_final_next_states).max(1)[0].detach()
    expected = (next_state_values * GAMMA) + reward_batch
    loss = F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
