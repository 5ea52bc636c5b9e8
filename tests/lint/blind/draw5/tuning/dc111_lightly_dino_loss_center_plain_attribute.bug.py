# devcheck bug corpus: DC111
# From: https://github.com/lightly-ai/lightly/pull/1629
# DINO training: DINOLoss delegates centering to a Center module built with
# _register_buffer=False, which keeps the center as a plain tensor attribute
# (the loss registers the same tensor as its own buffer). DINOLoss.to(device)
# copies the loss's buffer to the GPU, but Center.center stays on the CPU,
# and the forward subtracts it from the GPU teacher output.
# Written for devcheck's tests after the thread; not the project's code.
import copy

import torch
import torch.nn.functional as F
from torch import nn


class Center(nn.Module):
    def __init__(self, size, momentum=0.9, _register_buffer=True):
        super().__init__()
        self.dim = tuple(i for i, s in enumerate(size) if s == 1)
        center = torch.zeros(size)
        if _register_buffer:
            self.register_buffer("center", center)
        else:
            self.center = center  # <- bug
        self.momentum = momentum

    @property
    def value(self):
        return self.center

    @torch.no_grad()
    def update(self, x):
        batch_center = torch.mean(x, dim=self.dim, keepdim=True)
        self.center.copy_(self.center * self.momentum + batch_center * (1 - self.momentum))


class DINOLoss(nn.Module):
    def __init__(self, output_dim=256, teacher_temp=0.04, student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.teacher_temp = teacher_temp
        self.student_temp = student_temp
        self._center = Center(size=(1, 1, output_dim), momentum=center_momentum, _register_buffer=False)  # <- bug
        self.register_buffer("center", self._center.center)

    def forward(self, teacher_out, student_out):
        teacher_out = torch.stack(teacher_out)
        t_out = F.softmax((teacher_out - self._center.value) / self.teacher_temp, dim=-1)  # <- bug
        s_out = F.log_softmax(torch.stack(student_out) / self.student_temp, dim=-1)
        loss = -torch.einsum("tbd,sbd->ts", t_out, s_out)
        loss.fill_diagonal_(0)
        n_terms = loss.numel() - loss.diagonal().numel()
        loss = loss.sum() / (n_terms * teacher_out.shape[1])
        self.update_center(teacher_out)
        return loss

    @torch.no_grad()
    def update_center(self, teacher_out):
        self._center.update(teacher_out)  # <- bug


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    student = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 256)).to(device)
    teacher = copy.deepcopy(student)
    criterion = DINOLoss(output_dim=256).to(device)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.01)
    for step in range(5):
        views = [torch.randn(16, 128).to(device) for _ in range(2)]
        with torch.no_grad():
            teacher_out = [teacher(v) for v in views]
        student_out = [student(v) for v in views]
        loss = criterion(teacher_out, student_out)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
