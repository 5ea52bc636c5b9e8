# devcheck bug corpus: DC113
# From: https://github.com/samet-akcay/ganomaly/issues/26
# From: https://github.com/samet-akcay/ganomaly/commit/b0f894d47555e50c17c01f442de0348029df7834
# The fix (commit b0f894d) copies the labels and the scores to the host with .cpu()
# at the top of roc(), before sklearn's roc_curve converts them to NumPy arrays.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from scipy.interpolate import interp1d
from scipy.optimize import brentq
from sklearn.metrics import auc, roc_curve


def roc(labels, scores):
    labels = labels.cpu()  # <- fixed
    scores = scores.cpu()  # <- fixed
    fpr, tpr, _ = roc_curve(labels, scores)  # <- fixed
    roc_auc = auc(fpr, tpr)
    eer = brentq(lambda x: 1.0 - x - interp1d(fpr, tpr)(x), 0.0, 1.0)
    return roc_auc, eer


def evaluate(labels, scores, metric="roc"):
    if metric == "roc":
        return roc(labels, scores)[0]
    raise NotImplementedError(metric)


class Encoder(nn.Module):
    def __init__(self, nz):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, nz))

    def forward(self, x):
        return self.net(x)


class NetG(nn.Module):
    def __init__(self, nz):
        super().__init__()
        self.encoder1 = Encoder(nz)
        self.decoder = nn.Sequential(nn.Linear(nz, 3 * 32 * 32), nn.Tanh())
        self.encoder2 = Encoder(nz)

    def forward(self, x):
        latent_i = self.encoder1(x)
        fake = self.decoder(latent_i).view(-1, 3, 32, 32)
        return fake, latent_i, self.encoder2(fake)


class Ganomaly:
    def __init__(self, opt, dataloader):
        self.opt = opt
        self.dataloader = dataloader
        self.device = torch.device("cuda:0" if opt.device != "cpu" else "cpu")
        self.netg = NetG(opt.nz).to(self.device)

    def test(self):
        with torch.no_grad():
            n = len(self.dataloader["test"].dataset)
            an_scores = torch.zeros(size=(n,), dtype=torch.float32, device=self.device)
            gt_labels = torch.zeros(size=(n,), dtype=torch.long, device=self.device)
            bs = self.opt.batchsize
            for i, (images, labels) in enumerate(self.dataloader["test"]):
                images, labels = images.to(self.device), labels.to(self.device)
                _, latent_i, latent_o = self.netg(images)
                error = torch.mean(torch.pow(latent_i - latent_o, 2), dim=1)
                an_scores[i * bs: i * bs + error.size(0)] = error
                gt_labels[i * bs: i * bs + error.size(0)] = labels
            an_scores = (an_scores - torch.min(an_scores)) / (torch.max(an_scores) - torch.min(an_scores))
            return {"AUC": evaluate(gt_labels, an_scores, metric=self.opt.metric)}
