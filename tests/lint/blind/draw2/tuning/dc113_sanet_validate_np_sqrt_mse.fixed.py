# devcheck bug corpus: DC113
# From: https://github.com/jokermask/SANet/issues/4
# Fixed as in the thread: the accumulated squared error is copied to the host
# (`mse = mse.cpu().numpy()`) before np.sqrt.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class SANet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 16, 9, padding=4), nn.ReLU(), nn.Conv2d(16, 32, 7, padding=3), nn.ReLU())
        self.decoder = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def validate(val_dataset, model, epoch, batch_size=1):
    test_loader = DataLoader(val_dataset, batch_size=batch_size)
    model.eval()
    mae = 0
    mse = 0
    patch_num = 1
    for i, (img_list, target_list) in enumerate(test_loader):
        patch_num = len(img_list)
        for j in range(patch_num):
            img = img_list[j].cuda()
            target = target_list[j]
            with torch.no_grad():
                output = model(img)
            gt_count = target.sum().type(torch.FloatTensor).cuda()
            et_count = output.data.sum()
            mae += abs(gt_count - et_count)
            mse += (gt_count - et_count) * (gt_count - et_count)
    mae = mae / (len(test_loader) * patch_num)
    mse = mse.cpu().numpy()  # <- fixed
    mse = np.sqrt(mse / (len(test_loader) * patch_num))  # <- fixed
    print(" * MAE {mae:.3f}--MSE {mse:.3f} ".format(mae=float(mae), mse=float(mse)))
    return mae


def main(train_dataset, val_dataset, epochs):
    model = SANet()
    model = model.cuda()
    criterion = nn.MSELoss(reduction="sum").cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5)
    for epoch in range(epochs):
        model.train()
        for img, target in DataLoader(train_dataset, batch_size=1, shuffle=True):
            output = model(img.cuda())
            loss = criterion(output, target.type(torch.FloatTensor).unsqueeze(0).cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        validate(val_dataset, model, epoch)
