# devcheck bug corpus: DC101
# From: https://github.com/ivadomed/ivadomed/issues/1062
# From: https://github.com/ivadomed/ivadomed/pull/1063
# Mix-up for segmentation: the mixing weight is wrapped in a legacy
# torch.FloatTensor on the CPU and multiplied with the batch, which the
# training loop has already moved to the GPU: GPU training with mix-up fails.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def mixup(images, masks, alpha):
    order = torch.randperm(images.size(0))
    images_b = images[order]
    masks_b = masks[order]
    lam = np.random.beta(alpha, alpha)
    lam = max(lam, 1.0 - lam)
    lam_t = torch.FloatTensor([lam])  # <- bug
    images = images * lam_t + images_b * (1 - lam_t)
    masks = masks * lam_t + masks_b * (1 - lam_t)
    return images, masks


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 8, 3, padding=1)
        self.dec = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, x):
        return torch.sigmoid(self.dec(torch.relu(self.enc(x))))


def dice_loss(pred, gt, eps=1e-6):
    inter = (pred * gt).sum()
    return 1 - (2 * inter + eps) / (pred.sum() + gt.sum() + eps)


def train(config):
    cuda_available = torch.cuda.is_available()
    device = torch.device("cuda:0" if cuda_available else "cpu")
    images = torch.rand(32, 1, 64, 64)
    masks = (torch.rand(32, 1, 64, 64) > 0.5).float()
    loader = DataLoader(TensorDataset(images, masks), batch_size=8, shuffle=True)
    model = TinyUNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["epochs"]):
        model.train()
        for input_samples, gt_samples in loader:
            input_samples = input_samples.to(device)
            gt_samples = gt_samples.to(device)
            if config["mixup_alpha"]:
                input_samples, gt_samples = mixup(input_samples, gt_samples, config["mixup_alpha"])
            preds = model(input_samples)
            loss = dice_loss(preds, gt_samples)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    train({"lr": 1e-3, "epochs": 2, "mixup_alpha": 1.0})
