# devcheck bug corpus: DC101
# From: https://github.com/HLR/DomiKnowS/pull/409
# Fixed: the loss tensor is made on the solver's device
# (device=self.current_device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ILPSolver:
    def __init__(self, device):
        self.current_device = device

    def calculate_lc_loss(self, lc_losses):
        for name in lc_losses:
            current = lc_losses[name]
            lossList = current["lossList"]
            lossTensor = None
            separate = bool(lossList and lossList[0]) and torch.is_tensor(lossList[0][0]) \
                and lossList[0][0].dim() == 0
            if separate:
                lossTensor = torch.zeros(len(lossList), device=self.current_device)  # <- fixed
                for i, entries in enumerate(lossList):
                    lossTensor[i] = float("nan")
                    for entry in entries:
                        if entry is None:
                            continue
                        if lossTensor[i] != lossTensor[i]:
                            lossTensor[i] = entry
                        else:
                            lossTensor[i] += entry.item()
            elif lossList:
                for entry in lossList[0]:
                    if entry is not None:
                        lossTensor = entry if lossTensor is None else lossTensor + entry
            current["lossTensor"] = lossTensor
            current["conversionTensor"] = 1 - lossTensor
        return lc_losses


class InferenceModel(nn.Module):
    def __init__(self, solver, constraints, device):
        super().__init__()
        self.solver = solver
        self.constr = constraints
        self.device = device
        self.loss_func = nn.BCELoss()

    def forward(self, lc_losses, read_labels):
        constr_loss = self.solver.calculate_lc_loss(lc_losses)
        losses = []
        for lc_name, loss_dict in constr_loss.items():
            if lc_name not in self.constr:
                continue
            constr_out = loss_dict["conversionTensor"]
            lbl = read_labels[f"{lc_name}/label"].to(self.device).float()
            losses.append(self.loss_func(constr_out.float(), lbl))
        return sum(losses)
