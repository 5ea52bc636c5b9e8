# devcheck bug corpus: DC113
# From: https://github.com/datamllab/rlcard/pull/74
# The PyTorch DQN agent of a card-game toolkit predicted Q-values with its
# network on the GPU and called .numpy() on them: "TypeError: can't convert CUDA
# tensor to numpy". The fix added .cpu().
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


class Estimator:
    def __init__(self, qnet, device):
        self.device = device
        self.qnet = qnet.to(device)

    def predict_nograd(self, s):
        with torch.no_grad():
            s = torch.from_numpy(s).float().to(self.device)
            q_as = self.qnet(s).numpy()  # <- bug
        return q_as

    def best_action(self, state):
        q_values = self.predict_nograd(np.expand_dims(state, 0))[0]
        return int(np.argmax(q_values))
