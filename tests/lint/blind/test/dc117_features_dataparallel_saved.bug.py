# devcheck bug corpus: DC117
# From: https://github.com/bearpaw/pytorch-classification/issues/27
# For AlexNet and VGG the CIFAR script wrapped only model.features in
# DataParallel and saved model.state_dict(); the checkpoint's keys read
# "features.module.0.weight", and loading them into a model wrapped the other way
# failed.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def main(model, arch, checkpoint_path):
    if arch.startswith("alexnet") or arch.startswith("vgg"):
        model.features = torch.nn.DataParallel(model.features)
        model.cuda()
    else:
        model = torch.nn.DataParallel(model).cuda()
    state = {
        "epoch": 1,
        "state_dict": model.state_dict(),  # <- bug
    }
    torch.save(state, checkpoint_path)
