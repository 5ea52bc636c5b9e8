# devcheck bug corpus: DC120
# From: https://github.com/pxq0312/SFANet-crowd-counting/issues/5
# The fix the reporter gives: put the ground-truth count on the GPU with the
# prediction before they are compared.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
from torch import nn, optim
from torch.utils import data
from dataset import Dataset
from models import Model

parser = argparse.ArgumentParser()
parser.add_argument("--bs", default=8, type=int)
parser.add_argument("--epoch", default=500, type=int)
parser.add_argument("--dataset", default="SHA", type=str)
parser.add_argument("--data_path", default="./data", type=str)
parser.add_argument("--save_path", default="./checkpoint", type=str)
parser.add_argument("--gpu", default=0, type=int)
args = parser.parse_args()

train_loader = data.DataLoader(Dataset(args.data_path, args.dataset, True), batch_size=args.bs, shuffle=True)
test_loader = data.DataLoader(Dataset(args.data_path, args.dataset, False), batch_size=1, shuffle=False)

device = torch.device("cuda:" + str(args.gpu))
model = Model().to(device)
mseloss = nn.MSELoss(reduction="sum").to(device)
bceloss = nn.BCELoss(reduction="sum").to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-4)
best_mae = 999999

for epoch in range(args.epoch):
    model.train()
    for images, density, att in train_loader:
        images, density, att = images.to(device), density.to(device), att.to(device)
        outputs, attention = model(images)
        loss = mseloss(outputs, density) / args.bs + bceloss(attention, att) / args.bs * 0.1
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    model.eval()
    with torch.no_grad():
        mae, mse = 0.0, 0.0
        for images, gt in test_loader:
            images = images.to(device)
            gt = gt.to(device)  # <- fixed
            predict, _ = model(images)
            mae += torch.abs(predict.sum() - gt).item()  # <- fixed
            mse += ((predict.sum() - gt) ** 2).item()  # <- fixed
        mae /= len(test_loader)
        mse = (mse / len(test_loader)) ** 0.5
        print("Epoch:", epoch, "MAE:", mae, "MSE:", mse)
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "mae": mae}
        torch.save(state, os.path.join(args.save_path, "checkpoint_latest.pth"))
        if mae < best_mae:
            best_mae = mae
            torch.save(state, os.path.join(args.save_path, "checkpoint_best.pth"))
