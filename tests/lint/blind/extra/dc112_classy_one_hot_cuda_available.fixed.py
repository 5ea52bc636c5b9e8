# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/ClassyVision/pull/69
# Fixed: the one-hot targets are made on the targets' device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def convert_to_one_hot(targets, classes):
    assert torch.max(targets).item() < classes, "Class index must be less than number of classes"
    device = targets.device  # <- fixed
    one_hot_targets = torch.zeros((targets.shape[0], classes), dtype=torch.long, device=device)
    one_hot_targets.scatter_(1, targets.long(), 1)
    return one_hot_targets


class SoftTargetCrossEntropyLoss(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, output, target):
        if target.ndim == 1 or target.shape[1] == 1:
            target = convert_to_one_hot(target.view(-1, 1), self.num_classes)
        return torch.sum(-target.float() * nn.functional.log_softmax(output, -1), -1).mean()


def main():
    model = nn.Linear(16, 5)
    criterion = SoftTargetCrossEntropyLoss(5)
    x = torch.randn(8, 16)
    y = torch.randint(0, 5, (8,))
    print(criterion(model(x), y))


if __name__ == "__main__":
    main()
