# devcheck bug corpus: DC120
# From: https://github.com/Lightning-AI/torchmetrics/issues/608
# An audio classifier's training loop: the spectrograms, the labels and the
# model are on cuda:0, but the torchmetrics Accuracy made at the top of the
# loop stays on the CPU, so updating it with the softmax output and the
# labels fails although both inputs are on the same device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torchmetrics
from torch import nn
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


class CNN14Mod(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1)
        )
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def train_loop(epoch, dataloader, scaler, model, loss_fn, optim, device="cuda:0"):
    model.train()
    epoch_loss = 0
    metric = torchmetrics.Accuracy()  # <- bug
    pbar = tqdm(enumerate(dataloader), total=len(dataloader))
    for step, (img, label) in pbar:
        optim.zero_grad()
        img = img.to(device).float()
        label = label.to(device).long()
        with autocast():
            yhat = model(img)
            train_loss = loss_fn(input=yhat, target=label)
            out = torch.softmax(yhat, dim=1)
        train_step_acc = metric(out, label)
        scaler.scale(train_loss).backward()
        scaler.step(optim)
        scaler.update()
        epoch_loss += train_loss.item()
        pbar.set_description(f"epoch {epoch} loss {train_loss.item():.4f} acc {train_step_acc:.3f}")
    return epoch_loss / len(dataloader), metric.compute()


if __name__ == "__main__":
    device = "cuda:0"
    data = TensorDataset(torch.randn(64, 1, 64, 64), torch.randint(0, 10, (64,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = CNN14Mod().to(device)
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = GradScaler()
    for epoch in range(3):
        print(train_loop(epoch, loader, scaler, model, nn.CrossEntropyLoss(), optim, device))
