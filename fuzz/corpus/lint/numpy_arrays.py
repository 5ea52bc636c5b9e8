import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
class Agent:
    def __init__(self, net):
        self.net = net
        self.net.to(device)
    def act(self, obs):
        state = torch.from_numpy(obs).float().unsqueeze(0)
        return self.net(state)
def step(batch, labels):
    x = torch.from_numpy(batch)
    for i in range(3):
        x, = (x.cuda(),)
    out = model(x)
    target = torch.as_tensor(np.asarray(labels))
    both = torch.cat([out, torch.as_tensor([1.0, 2.0])])
    return F.cross_entropy(out, target) + out * torch.from_numpy(batch)[0], both
