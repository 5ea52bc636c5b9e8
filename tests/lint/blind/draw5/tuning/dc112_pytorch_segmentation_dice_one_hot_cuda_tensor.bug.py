# devcheck bug corpus: DC112
# From: https://github.com/yassouali/pytorch-segmentation/issues/80
# From: https://github.com/yassouali/pytorch-segmentation/commit/03e90418f0af41b77dfd6c833699f5a0311e89a1
# The Dice loss one-hot encodes the target with the legacy
# torch.cuda.FloatTensor(...) constructor, which allocates on the current
# CUDA device (cuda:0) whatever GPU the labels are on; training on another
# GPU fails in scatter_ with "arguments are located on different GPUs".
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_one_hot(labels, classes):
    one_hot = torch.cuda.FloatTensor(labels.size()[0], classes, labels.size()[2], labels.size()[3]).zero_()  # <- bug
    target = one_hot.scatter_(1, labels.data, 1)
    return target


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0, ignore_index=255):
        super().__init__()
        self.ignore_index = ignore_index
        self.smooth = smooth

    def forward(self, output, target):
        if (target == self.ignore_index).sum() > 0:
            target[target == self.ignore_index] = target.min()
        target = make_one_hot(target.unsqueeze(dim=1), classes=output.size()[1])
        output = F.softmax(output, dim=1)
        intersection = (output.contiguous().view(-1) * target.contiguous().view(-1)).sum()
        return 1 - ((2.0 * intersection + self.smooth) / (output.sum() + target.sum() + self.smooth))


class CE_DiceLoss(nn.Module):
    def __init__(self, ignore_index=255):
        super().__init__()
        self.dice = DiceLoss()
        self.cross_entropy = nn.CrossEntropyLoss(ignore_index=ignore_index)

    def forward(self, output, target):
        return self.cross_entropy(output, target) + self.dice(output, target)


def main(args):
    device = torch.device(f"cuda:{args.gpu}" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, args.classes, 1)).to(device)
    criterion = CE_DiceLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(10):
        images = torch.randn(4, 3, 64, 64).to(device)
        labels = torch.randint(0, args.classes, (4, 64, 64)).to(device)
        loss = criterion(model(images), labels.long())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", type=int, default=1)
    parser.add_argument("--classes", type=int, default=7)
    main(parser.parse_args())
