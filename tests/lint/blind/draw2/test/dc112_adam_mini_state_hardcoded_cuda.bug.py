# devcheck bug corpus: DC112
# From: https://github.com/zyushun/Adam-mini/pull/1
# The Adam-mini optimizer module chooses device = "cuda" if available else
# "cpu" at the top, but step() made its per-head second-moment state and the
# squared-gradient means with .cuda(): running it on a machine without CUDA
# (or another device) failed. The pull request replaces those calls with
# .to(device).
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
from torch.optim.optimizer import Optimizer

device = "cuda" if torch.cuda.is_available() else "cpu"


class Adam_mini(Optimizer):
    def __init__(self, model=None, weight_decay=0.1, lr=1, beta1=0.9, beta2=0.999, epsilon=1e-8, n_embd=2048, n_head=32):
        self.model = model
        self.n_embd = n_embd
        self.n_head = n_head
        optim_groups = []
        for name, param in self.model.named_parameters():
            if param.requires_grad:
                optim_groups.append({"name": name, "params": param, "weight_decay": 0 if "norm" in name else weight_decay,
                                     "parameter_per_head": n_embd * n_embd // n_head})
        defaults = dict(lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon)
        super().__init__(optim_groups, defaults)

    def step(self):
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2, lr, name = group["beta1"], group["beta2"], group["lr"], group["name"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if "q_proj.weight" in name or "k_proj.weight" in name:
                        dim = group["parameter_per_head"]
                        if len(state) == 0:
                            state["m"] = torch.zeros_like(p.data).to(torch.float32).view(-1, dim)
                            state["head"] = state["m"].shape[0]
                            state["iteration"] = 0
                            state["vmean"] = torch.zeros(state["head"]).cuda()  # <- bug
                        grad = p.grad.data.to(torch.float32).view(state["head"], dim)
                        tmp_lr = torch.mean(grad * grad, dim=1).cuda()  # <- bug
                        state["vmean"].mul_(beta2).add_(tmp_lr, alpha=1 - beta2)
                        state["iteration"] += 1
                        state["m"].lerp_(grad, 1 - beta1)
                        bc1 = 1 - beta1 ** state["iteration"]
                        bc2_sqrt = math.sqrt(1 - beta2 ** state["iteration"])
                        h = (state["vmean"].sqrt() / bc2_sqrt).add_(group["epsilon"])
                        update = (state["m"] * ((1 / bc1) / h).view(-1, 1)).view_as(p)
                        p.add_(-lr * update)
                    else:
                        if len(state) == 0:
                            state["m"] = torch.zeros_like(p.data).to(torch.float32)
                            state["iteration"] = 0
                            state["vmean"] = torch.tensor(0.0).cuda()  # <- bug
                            state["dimension"] = p.data.numel()
                        grad = p.grad.data.to(torch.float32)
                        tmp_lr = (torch.sum(grad * grad) / state["dimension"]).to(grad.device)
                        state["iteration"] += 1
                        state["m"].lerp_(grad, 1 - beta1)
                        bc1 = 1 - beta1 ** state["iteration"]
                        bc2_sqrt = math.sqrt(1 - beta2 ** state["iteration"])
                        state["vmean"] = (1 - beta2) * tmp_lr + beta2 * state["vmean"]
                        h = (state["vmean"].sqrt() / bc2_sqrt).add_(group["epsilon"])
                        p.add_(-lr * state["m"] * ((1 / bc1) / h).to(state["m"].device))
