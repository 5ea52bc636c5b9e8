# devcheck bug corpus: DC111
# From: https://github.com/pytorch/pytorch/issues/1053
# A text CNN keeps its Conv1d layers in a plain Python list; after net.cuda()
# they are still on the CPU (and their parameters are not the model's). Use
# nn.ModuleList.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

WORD_VEC_SIZE = 300


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.ModuleList([  # <- fixed
            nn.Conv1d(WORD_VEC_SIZE, 1, 3),
            nn.Conv1d(WORD_VEC_SIZE, 1, 4),
            nn.Conv1d(WORD_VEC_SIZE, 1, 5),
        ])

    def forward(self, x):
        return torch.cat([conv(x).max(dim=2)[0] for conv in self.conv1d], dim=1)


net = Net()
net.cuda()
