# devcheck bug corpus: DC121
# From: https://github.com/huggingface/pytorch-image-models/pull/2752
# A model's reset_classifier rebuilt its pre-logits and classifier layers with
# PyTorch's defaults; called on a model already moved to the GPU (to fine-tune
# on a new number of classes), it left the new layers on the CPU. The fix gave
# every reset the old layers' device and dtype.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, num_features, num_classes):
        super().__init__()
        self.num_features = num_features
        self.backbone = nn.Linear(32, num_features)
        self.head = nn.Linear(num_features, num_classes)

    def reset_classifier(self, num_classes):
        self.head = nn.Linear(self.num_features, num_classes, device=self.backbone.weight.device)  # <- fixed

    def forward(self, x):
        return self.head(self.backbone(x))


def main(loader):
    model = Net(64, 1000)
    model.cuda()
    model.reset_classifier(10)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
