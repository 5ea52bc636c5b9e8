# devcheck bug corpus: DC113
# From: https://github.com/d2l-ai/d2l-en/pull/1966
# The book's Kaggle dog-breed section (PyTorch): fine-tuning a small output
# network on a pretrained ResNet wrapped in DataParallel on the GPUs. The
# validation loss is summed from the per-example losses of batches on
# devices[0], so it is a CUDA tensor, and it was handed to the Animator,
# whose matplotlib plot turns the recorded points into NumPy arrays:
# "TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy
# the tensor to host memory first." The PR moves it to the CPU before
# plotting.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
import torchvision
from d2l import torch as d2l
from torch import nn

loss = nn.CrossEntropyLoss(reduction="none")


def get_net(devices):
    finetune_net = nn.Sequential()
    finetune_net.features = torchvision.models.resnet34(pretrained=True)
    finetune_net.output_new = nn.Sequential(nn.Linear(1000, 256), nn.ReLU(), nn.Linear(256, 120))
    finetune_net = finetune_net.to(devices[0])
    for param in finetune_net.features.parameters():
        param.requires_grad = False
    return finetune_net


def evaluate_loss(data_iter, net, devices):
    l_sum, n = 0.0, 0
    for features, labels in data_iter:
        features, labels = features.to(devices[0]), labels.to(devices[0])
        outputs = net(features)
        l = loss(outputs, labels)
        l_sum += l.sum()
        n += labels.numel()
    return l_sum / n


def train(net, train_iter, valid_iter, num_epochs, lr, wd, devices, lr_period, lr_decay):
    net = nn.DataParallel(net, device_ids=devices).to(devices[0])
    trainer = torch.optim.SGD((p for p in net.parameters() if p.requires_grad), lr=lr, momentum=0.9, weight_decay=wd)
    scheduler = torch.optim.lr_scheduler.StepLR(trainer, lr_period, lr_decay)
    animator = d2l.Animator(xlabel="epoch", xlim=[1, num_epochs], legend=["train loss", "valid loss"])
    for epoch in range(num_epochs):
        metric = d2l.Accumulator(2)
        for features, labels in train_iter:
            features, labels = features.to(devices[0]), labels.to(devices[0])
            trainer.zero_grad()
            l = loss(net(features), labels).sum()
            l.backward()
            trainer.step()
            metric.add(l, labels.shape[0])
        animator.add(epoch + 1, (metric[0] / metric[1], None))
        valid_loss = evaluate_loss(valid_iter, net, devices)
        animator.add(epoch + 1, (None, valid_loss.detach()))  # <- bug
        scheduler.step()
    print(f"train loss {metric[0] / metric[1]:.3f}, valid loss {valid_loss:.3f}")


if __name__ == "__main__":
    devices = d2l.try_all_gpus()
    transform = torchvision.transforms.Compose([
        torchvision.transforms.RandomResizedCrop(224),
        torchvision.transforms.ToTensor(),
        torchvision.transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    train_ds, valid_ds = [torchvision.datasets.ImageFolder(
        os.path.join("../data/dog-breed-identification", "train_valid_test", folder),
        transform=transform) for folder in ["train", "valid"]]
    train_iter = torch.utils.data.DataLoader(train_ds, 128, shuffle=True, drop_last=True)
    valid_iter = torch.utils.data.DataLoader(valid_ds, 128, shuffle=False, drop_last=True)
    train(get_net(devices), train_iter, valid_iter, 10, 1e-4, 1e-4, devices, 2, 0.9)
