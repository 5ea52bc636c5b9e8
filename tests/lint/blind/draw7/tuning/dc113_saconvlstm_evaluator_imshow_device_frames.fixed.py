# devcheck bug corpus: DC113
# From: https://github.com/tsugumi-sys/SA-ConvLSTM-Pytorch/pull/42
# The fix copies the frames of each row to the host (.cpu().detach()) before
# the evaluator gives them to matplotlib's imshow.
# Written for devcheck's tests after the thread; not the project's code.
import os

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class Seq2Seq(nn.Module):
    def __init__(self, channels=1, hidden=16):
        super().__init__()
        self.enc = nn.Conv3d(channels, hidden, 3, padding=1)
        self.dec = nn.Conv3d(hidden, channels, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.dec(torch.relu(self.enc(x))))


class Trainer:
    def __init__(self, model, loader, epochs=1):
        self.model = model.to(DEVICE)
        self.loader = loader
        self.epochs = epochs
        self.opt = torch.optim.Adam(self.model.parameters(), lr=5e-4)

    def run(self):
        for _ in range(self.epochs):
            for x, y in self.loader:
                x, y = x.to(DEVICE), y.to(DEVICE)
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()


class Evaluator:
    def __init__(self, model, loader, save_dir):
        self.model = model
        self.loader = loader
        self.save_dir = save_dir
        os.makedirs(save_dir, exist_ok=True)

    def run(self):
        with torch.no_grad():
            for i, (x, y) in enumerate(self.loader):
                x, y = x.to(DEVICE), y.to(DEVICE)
                self.plot(i, y, self.model(x))

    def plot(self, idx, label_frames, pred_frames):
        n = label_frames.size(2)
        fig = plt.figure(figsize=(16, 6))
        for row, sub in enumerate(fig.subfigures(nrows=2, ncols=1)):
            sub.suptitle("prediction" if row == 1 else "label")
            axs = sub.subplots(1, n)
            frames = pred_frames if row == 1 else label_frames
            frames = frames.cpu().detach()  # <- fixed
            for f in range(n):
                axs[f].imshow(frames[0, 0, f], cmap="gray")  # <- fixed
                axs[f].set(xticks=[], yticks=[], xlabel=f"frame{f}")
        plt.savefig(os.path.join(self.save_dir, f"test-case{idx}.png"))
        plt.close(fig)


def main():
    data = TensorDataset(torch.rand(8, 1, 10, 64, 64), torch.rand(8, 1, 10, 64, 64))
    model = Seq2Seq()
    Trainer(model, DataLoader(data, batch_size=2)).run()
    Evaluator(model, DataLoader(data, batch_size=1), "./tmp").run()


if __name__ == "__main__":
    main()
