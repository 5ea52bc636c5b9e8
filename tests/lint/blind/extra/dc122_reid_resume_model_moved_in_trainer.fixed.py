# devcheck bug corpus: DC122
# From: https://github.com/michuanhaohao/reid-strong-baseline/issues/114
# Fixed: the model is on its device before its optimizer's state is loaded,
# so the state goes where the parameters are.
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
        model.to(device)  # <- fixed

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
    model.to("cuda")  # <- fixed
    optimizer = torch.optim.Adam(model.parameters(), lr=3.5e-4)
    if pretrain_path:
        model.load_state_dict(torch.load(pretrain_path, map_location="cpu"))
        optimizer.load_state_dict(  # <- fixed
            torch.load(pretrain_path.replace("model", "optimizer"), map_location="cpu"))
    do_train(model, train_loader, optimizer, nn.CrossEntropyLoss(), epochs, "cuda")  # <- fixed
