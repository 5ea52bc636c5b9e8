# devcheck bug corpus: DC112
# From: https://github.com/laekov/fastmoe/pull/205
# From: https://github.com/laekov/fastmoe/commit/d6eaa04b2fe424df124149d80ea5d650fe3f7ab7
# FastMoE's naive gate records a dummy balance loss on every forward with
# torch.zeros(1).cuda(): the gate itself runs wherever its input is, but the loss is
# put on the current CUDA device, so the layer fails on a machine without CUDA (or on
# another accelerator) and the loss lands on cuda:0 for a gate on another GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseGate(nn.Module):
    def __init__(self, num_expert, world_size):
        super().__init__()
        self.world_size = world_size
        self.num_expert = num_expert
        self.tot_expert = world_size * num_expert
        self.loss = None

    def set_loss(self, loss):
        self.loss = loss

    def get_loss(self, clear=True):
        loss = self.loss
        if clear:
            self.loss = None
        return loss


class NaiveGate(BaseGate):
    def __init__(self, d_model, num_expert, world_size, top_k=2, gate_bias=True):
        super().__init__(num_expert, world_size)
        self.gate = nn.Linear(d_model, self.tot_expert, bias=gate_bias)
        self.top_k = top_k

    def forward(self, inp, return_all_scores=False):
        gate = self.gate(inp)
        gate_top_k_val, gate_top_k_idx = torch.topk(gate, k=self.top_k, dim=-1, largest=True, sorted=False)
        gate_top_k_val = gate_top_k_val.view(-1, self.top_k)
        gate_score = F.softmax(gate_top_k_val, dim=-1)
        self.set_loss(torch.zeros(1, requires_grad=True).cuda())  # <- bug
        if return_all_scores:
            return gate_top_k_idx, gate_score, gate
        return gate_top_k_idx, gate_score


class SimpleMoE(nn.Module):
    def __init__(self, d_model=64, num_expert=4):
        super().__init__()
        self.gate = NaiveGate(d_model, num_expert, world_size=1, top_k=2)
        self.experts = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(num_expert)])

    def forward(self, x):
        idx, score = self.gate(x)
        out = torch.zeros_like(x)
        for k in range(idx.shape[1]):
            for e, expert in enumerate(self.experts):
                sel = idx[:, k] == e
                out[sel] += score[sel, k:k + 1] * expert(x[sel])
        return out, self.gate.get_loss()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    moe = SimpleMoE().to(device)
    y, aux = moe(torch.randn(32, 64, device=device))
    (y.sum() + aux.sum()).backward()
