# devcheck bug corpus: DC122
# From: https://github.com/michuanhaohao/reid-strong-baseline/issues/114
# Resuming a re-identification run: the training script built the model and
# its optimizer and loaded the optimizer's saved state with the model still on
# the CPU; the trainer it then called wrapped and moved the model to the GPU.
# The loaded state stayed on the host and the first step failed. The comment
# that solved it moved the state after the move; here the model is moved
# before the state is loaded.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Baseline(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.classifier(self.base(x).flatten(1))


def create_supervised_trainer(model, optimizer, loss_fn, device=None):
    if device:
        if torch.cuda.device_count() > 1:
            model = nn.DataParallel(model)
        model.to(device)  # <- bug

    def update(batch):
        model.train()
        optimizer.zero_grad()
        img, target = batch
        img = img.to(device)
        target = target.to(device)
        score = model(img)
        loss = loss_fn(score, target)
        loss.backward()
        optimizer.step()
        return loss.item()

    return update


def do_train(model, train_loader, optimizer, loss_fn, epochs, device):
    update = create_supervised_trainer(model, optimizer, loss_fn, device=device)
    for _ in range(epochs):
        for batch in train_loader:
            update(batch)


def train(train_loader, num_classes, pretrain_path, epochs):
    model = Baseline(num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=3.5e-4)
    if pretrain_path:
        model.load_state_dict(torch.load(pretrain_path, map_location="cpu"))
        optimizer.load_state_dict(  # <- bug
            torch.load(pretrain_path.replace("model", "optimizer"), map_location="cpu"))
    do_train(model, train_loader, optimizer, nn.CrossEntropyLoss(), epochs, "cuda")  # <- bug
