# devcheck bug corpus: DC111
# From: https://github.com/rish-16/tokenlearner-pytorch/issues/4
# From: https://github.com/rish-16/tokenlearner-pytorch/commit/2b4f107e544e199514e2bc0dfc9461bc8775b862
# TokenLearner keeps its S spatial-attention tokenizers in a plain Python
# list. Moving a model that holds it to the GPU moves none of them (they are
# not registered submodules), so the CUDA input met their CPU convolutions:
# "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
# should be the same". The answer in the thread, then the maintainer's
# commit: wrap the list in nn.ModuleList.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class SpatialAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(2, 1, kernel_size=(1, 1), stride=1), nn.BatchNorm2d(1), nn.ReLU())

    def forward(self, x):
        B, H, W, C = x.shape
        x = x.view(B, C, H, W)
        mx = torch.max(x, 1)[0].unsqueeze(1)
        avg = torch.mean(x, 1).unsqueeze(1)
        weight_map = torch.sigmoid(self.conv(torch.cat([mx, avg], dim=1)))
        return (x * weight_map).mean(dim=(-2, -1)), x * weight_map


class TokenLearner(nn.Module):
    def __init__(self, S):
        super().__init__()
        self.S = S
        self.tokenizers = [SpatialAttention() for _ in range(S)]  # <- bug

    def forward(self, x):
        B, _, _, C = x.shape
        Z = torch.Tensor(B, self.S, C)
        for i in range(self.S):
            Ai, _ = self.tokenizers[i](x)
            Z[:, i, :] = Ai
        return Z


class TokenViT(nn.Module):
    def __init__(self, channels=64, S=8, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 4, stride=4)
        self.tokenlearner = TokenLearner(S)
        self.mhsa = nn.MultiheadAttention(channels, 4, batch_first=True)
        self.head = nn.Linear(channels, num_classes)

    def forward(self, images):
        x = self.stem(images).permute(0, 2, 3, 1)
        tokens = self.tokenlearner(x).to(x.device)
        tokens, _ = self.mhsa(tokens, tokens, tokens)
        return self.head(tokens.mean(1))


def train(loader, epochs=10):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TokenViT().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            loss = nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
