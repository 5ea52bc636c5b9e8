# devcheck bug corpus: DC111
# From: https://github.com/xmu-xiaoma666/External-Attention-pytorch/issues/94
# MlpMixer appends its mixer blocks to a plain Python list, so they are not registered
# submodules: moving the model to the GPU leaves every block on the CPU, and the first
# block fails on the GPU tokens ("Input type (torch.cuda.FloatTensor) and weight type
# (torch.FloatTensor) should be the same").
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn


class MlpBlock(nn.Module):
    def __init__(self, input_dim, mlp_dim=512):
        super().__init__()
        self.fc1 = nn.Linear(input_dim, mlp_dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(mlp_dim, input_dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MixerBlock(nn.Module):
    def __init__(self, tokens_mlp_dim, channels_mlp_dim, tokens_hidden_dim, channels_hidden_dim):
        super().__init__()
        self.ln = nn.LayerNorm(channels_mlp_dim)
        self.token_mix = MlpBlock(tokens_mlp_dim, tokens_hidden_dim)
        self.channel_mix = MlpBlock(channels_mlp_dim, channels_hidden_dim)

    def forward(self, x):
        y = self.token_mix(self.ln(x).transpose(1, 2)).transpose(1, 2)
        out = x + y
        return out + self.channel_mix(self.ln(out))


class MlpMixer(nn.Module):
    def __init__(self, num_classes, num_blocks, patch_size, tokens_hidden_dim, channels_hidden_dim, tokens_mlp_dim, channels_mlp_dim):
        super().__init__()
        self.num_blocks = num_blocks
        self.tokens_mlp_dim = tokens_mlp_dim
        self.embd = nn.Conv2d(3, channels_mlp_dim, kernel_size=patch_size, stride=patch_size)
        self.ln = nn.LayerNorm(channels_mlp_dim)
        self.mlp_blocks = []  # <- bug
        for _ in range(num_blocks):
            self.mlp_blocks.append(MixerBlock(tokens_mlp_dim, channels_mlp_dim, tokens_hidden_dim, channels_hidden_dim))
        self.fc = nn.Linear(channels_mlp_dim, num_classes)

    def forward(self, x):
        y = self.embd(x)
        bs, c, h, w = y.shape
        y = y.view(bs, c, -1).transpose(1, 2)
        if self.tokens_mlp_dim != y.shape[1]:
            raise ValueError("tokens_mlp_dim is not correct")
        for i in range(self.num_blocks):
            y = self.mlp_blocks[i](y)
        y = torch.mean(self.ln(y), dim=1)
        return self.fc(y)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    mixer = MlpMixer(num_classes=1000, num_blocks=10, patch_size=10, tokens_hidden_dim=32,
                     channels_hidden_dim=1024, tokens_mlp_dim=16, channels_mlp_dim=1024).to(device)
    images = torch.randn(50, 3, 40, 40).to(device)
    print(mixer(images).shape)
