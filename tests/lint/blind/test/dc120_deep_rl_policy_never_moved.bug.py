# devcheck bug corpus: DC120
# From: https://github.com/huggingface/deep-rl-class/issues/56
# The course's REINFORCE policy moved the state to the device in act(), but the
# debug policy was built without .to(device): "Expected all tensors to be on
# the same device, but found at least two devices, cpu and cuda:0".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class Policy(nn.Module):
    def __init__(self, s_size, a_size, h_size):
        super().__init__()
        self.fc1 = nn.Linear(s_size, h_size)
        self.fc2 = nn.Linear(h_size, a_size)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)

    def act(self, state):
        state = torch.from_numpy(state).float().unsqueeze(0).to(device)
        probs = self.forward(state).cpu()
        m = Categorical(probs)
        action = m.sample()
        return action.item(), m.log_prob(action)


debug_policy = Policy(4, 2, 64)  # <- bug
debug_policy.act(np.zeros(4, dtype=np.float32))
