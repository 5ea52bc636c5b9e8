# devcheck bug corpus: DC109
# From: https://github.com/MIC-DKFZ/nnUNet/pull/2684
# The trainer imports GradScaler from the deprecated torch.cuda.amp and builds
# it as GradScaler() when training on CUDA: torch 2.4+ warns that
# torch.cuda.amp.GradScaler(args...) is deprecated for torch.GradScaler("cuda").
# Written for devcheck's tests after the thread; not the project's code.
from contextlib import nullcontext

import torch
from torch import autocast, nn
from torch.cuda.amp import GradScaler  # <- bug


class SegTrainer:
    def __init__(self, network, device=torch.device("cuda"), initial_lr=1e-2):
        self.device = device
        if self.device.type == "cuda" and not torch.cuda.is_available():
            self.device = torch.device("cpu")
        self.network = network.to(self.device)
        self.optimizer = torch.optim.SGD(self.network.parameters(), initial_lr, momentum=0.99, nesterov=True)
        self.loss = nn.CrossEntropyLoss()
        self.grad_scaler = GradScaler() if self.device.type == "cuda" else None  # <- bug

    def train_step(self, batch):
        data = batch["data"].to(self.device)
        target = batch["target"].to(self.device)
        self.optimizer.zero_grad(set_to_none=True)
        with autocast(self.device.type, enabled=True) if self.device.type == "cuda" else nullcontext():
            output = self.network(data)
            l = self.loss(output, target)
        if self.grad_scaler is not None:
            self.grad_scaler.scale(l).backward()
            self.grad_scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 12)
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
        else:
            l.backward()
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 12)
            self.optimizer.step()
        return {"loss": l.detach().cpu().numpy()}


if __name__ == "__main__":
    net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 3, 1))
    trainer = SegTrainer(net)
    batch = {"data": torch.randn(2, 1, 64, 64), "target": torch.randint(0, 3, (2, 64, 64))}
    print(trainer.train_step(batch))
