# devcheck bug corpus: DC105
# From: https://github.com/abhishekkrthakur/tez/pull/18
# tez's Model.load(model_path, device="cpu") moves the model to the device
# asked for and then reads the checkpoint written by Model.save with
# torch.load and no map_location: a model trained and saved on a GPU cannot
# be loaded for CPU inference on a machine without CUDA.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.optimizer = None
        self.scheduler = None
        self.current_epoch = 0
        self.device = None
        self.fp16 = False

    def save(self, model_path):
        torch.save({
            "state_dict": self.state_dict(),
            "optimizer": self.optimizer.state_dict() if self.optimizer is not None else None,
            "scheduler": self.scheduler.state_dict() if self.scheduler is not None else None,
            "epoch": self.current_epoch,
            "fp16": self.fp16,
        }, model_path)

    def load(self, model_path, device="cuda"):
        self.device = device
        if next(self.parameters()).device != self.device:
            self.to(self.device)
        model_dict = torch.load(model_path)  # <- bug
        self.load_state_dict(model_dict["state_dict"])

    def fit(self, dataset, device="cuda", epochs=1, bs=16):
        self.device = device
        self.to(device)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        for self.current_epoch in range(epochs):
            for x, y in DataLoader(dataset, batch_size=bs, shuffle=True):
                x, y = x.to(device), y.to(device)
                _, loss = self(x, y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


class TabularModel(Model):
    def __init__(self, n_features, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, x, targets=None):
        out = self.net(x)
        loss = nn.functional.cross_entropy(out, targets) if targets is not None else None
        return out, loss


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["train"]:
        data = TensorDataset(torch.randn(256, 10), torch.randint(0, 3, (256,)))
        model = TabularModel(10, 3)
        model.fit(data, device="cuda", epochs=3)
        model.save("model.bin")
    else:
        model = TabularModel(10, 3)
        model.load("model.bin", device="cpu")
        print(model(torch.randn(4, 10))[0].argmax(dim=1))
