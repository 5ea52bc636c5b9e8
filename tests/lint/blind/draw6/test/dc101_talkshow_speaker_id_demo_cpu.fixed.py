# devcheck bug corpus: DC101
# From: https://github.com/yhw-yhw/TalkSHOW/issues/36
# The fix (as the thread gives it) moves the class label to the embedding's
# device at the top of each gated layer's forward, so the speaker id made on
# the demo's CPU device reaches the embedding on the generator's GPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cpu"


class GatedLayer(nn.Module):
    def __init__(self, dim, n_classes):
        super().__init__()
        self.class_cond_embedding = nn.Embedding(n_classes, 2 * dim)
        self.vert_stack = nn.Conv2d(dim, 2 * dim, (3, 1), 1, (1, 0))
        self.resid = nn.Conv2d(dim, dim, 1)

    def forward(self, x, h):
        h = h.to(self.class_cond_embedding.weight.device)  # <- fixed
        h = self.class_cond_embedding(h)
        v = self.vert_stack(x)[:, :, : x.size(-2), :] + h[:, :, None, None]
        a, b = v.chunk(2, dim=1)
        return self.resid(torch.tanh(a) * torch.sigmoid(b)) + x


class PixelPrior(nn.Module):
    def __init__(self, codes=512, dim=64, n_layers=4, n_classes=4):
        super().__init__()
        self.embedding = nn.Embedding(codes, dim)
        self.layers = nn.ModuleList(GatedLayer(dim, n_classes) for _ in range(n_layers))
        self.out = nn.Conv2d(dim, codes, 1)

    def forward(self, x, label):
        x = self.embedding(x).permute(0, 3, 1, 2)
        for layer in self.layers:
            x = layer(x, label)
        return self.out(x)

    @torch.no_grad()
    def generate(self, label, shape=(8, 2), batch_size=1):
        param = next(self.parameters())
        x = torch.zeros((batch_size, *shape), dtype=torch.int64, device=param.device)
        for i in range(shape[0]):
            for j in range(shape[1]):
                probs = F.softmax(self.forward(x, label)[:, :, i, j], -1)
                x[:, i, j] = probs.multinomial(1).squeeze(-1)
        return x


class BodyWrapper:
    def __init__(self, args):
        self.device = torch.device(args.device)
        self.generator = PixelPrior().to(self.device)

    def infer_on_audio(self, n_frames, id=None, B=1):
        self.generator.eval()
        if id is None:
            id = torch.tensor([0]).to(self.device)
        else:
            id = id.repeat(B)
        return self.generator.generate(id, shape=(n_frames // 4, 2), batch_size=B)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--id", type=int, default=1)
    args = parser.parse_args()
    g_body = BodyWrapper(args)
    id = torch.tensor([args.id], device=device)  # <- fixed
    latents = g_body.infer_on_audio(64, id=id)
    print(latents.cpu().numpy().shape)


if __name__ == "__main__":
    main()
