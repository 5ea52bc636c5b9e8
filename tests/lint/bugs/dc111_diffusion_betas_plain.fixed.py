# devcheck bug corpus: DC111
# From: https://github.com/yoniLc/DDECC/pull/2
# The diffusion decoder keeps self.betas and self.betas_bar as plain tensors
# made in __init__; indexing them with the GPU syndrome counts fails: "indices
# should be either on cpu or on the same device as the indexed tensor (cpu)".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class DDECCT(nn.Module):
    def __init__(self, n_steps, sigma, pc_matrix):
        super().__init__()
        self.register_buffer("pc_matrix", pc_matrix.transpose(0, 1).float())
        betas = torch.linspace(1e-3, 1e-2, n_steps)
        betas = betas * 0 + sigma
        self.register_buffer("betas", betas.view(-1, 1))  # <- fixed
        self.register_buffer("betas_bar", torch.cumsum(betas.view(-1, 1), 0).view(-1, 1))  # <- fixed
        self.decoder = nn.Linear(pc_matrix.size(1), pc_matrix.size(1))

    def p_sample(self, yt):
        t = (torch.matmul((yt < 0).float(), self.pc_matrix) % 2).round().long().sum(-1)
        noise = self.decoder(yt)
        factor = torch.sqrt(self.betas_bar[t]) * self.betas[t] / (self.betas_bar[t] + self.betas[t])
        return yt - noise * factor
