# devcheck bug corpus: DC112
# From: https://github.com/microsoft/CSWin-Transformer/pull/7
# CSWin's reset_classifier made the new head with .cuda() hard-coded: on a model
# still on the CPU (moved later, or never) the head alone went to the GPU. The
# fix made the move a choice.
# Written for devcheck's tests after the thread; not the project's code.
import torch.nn as nn


class CSWinTransformer(nn.Module):
    def __init__(self, dim, num_classes):
        super().__init__()
        self.features = nn.Linear(3, dim)
        self.head = nn.Linear(dim, num_classes)

    def reset_classifier(self, num_classes, to_gpu=False):
        in_dim = self.head.in_features
        self.head = nn.Linear(in_dim, num_classes).cuda()  # <- bug

    def forward(self, x):
        return self.head(self.features(x))
