# kind: loss-weight
# fixed twin: the same program as the fix made it; runs clean on a GPU
# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2984
# fix: hold the weighted criterions in an nn.ModuleList, so that model.to(device) moves their weight buffers
"""Handwriting recognition with one weighted CrossEntropyLoss per letter
position; the criterions live in a plain Python list on the model."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

ALPHABET, POSITIONS = 11, 3


class WordModel(nn.Module):
    def __init__(self, letter_weights_per_position):
        super().__init__()
        self.backbone = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(),
                                      nn.Linear(32, POSITIONS * ALPHABET))
        self.criterions = nn.ModuleList()
        for weight in letter_weights_per_position:
            self.criterions.append(nn.CrossEntropyLoss(weight=weight))

    def forward(self, images):
        return self.backbone(images).view(-1, POSITIONS, ALPHABET)

    def step(self, images, words):
        out = self(images)
        return sum(self.criterions[i](out[:, i, :], words[:, i]) for i in range(POSITIONS))


weights = [torch.ones(ALPHABET) for _ in range(POSITIONS)]
weights[0][0] = 0.1  # the first letter is rarely a blank
model = WordModel(weights).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.randn(8, 8, 8)
words = torch.randint(0, ALPHABET, (8, POSITIONS))
for step in range(3):
    loss = model.step(images.to(device), words.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("loss", round(loss.item(), 4))
