# devcheck bug corpus: DC111
# From: https://github.com/mattbev/6.867-final-project/issues/7
# A classifier wrapped for a universal-adversarial-perturbation attack kept
# the normalisation's mean and standard deviation as plain tensor attributes
# made in `__init__` (not buffers), so moving the model to CUDA left them on
# the CPU, and its forward, which un-normalises the image with them, failed:
# "Expected all tensors to be on the same device, but found at least two
# devices, cuda:0 and cpu!". The reporter's fix had them made on CUDA (a
# device flag of the wrapper); the twin registers them as buffers instead,
# which move with the model.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class NormalizedClassifier(nn.Module):
    def __init__(self, net, mean, std):
        super().__init__()
        self.net = net
        self.mean_tensor = torch.tensor(mean).view(1, 3, 1, 1)  # <- bug
        self.std_tensor = torch.tensor(std).view(1, 3, 1, 1)  # <- bug

    def forward(self, x):
        orig_img = x * self.std_tensor + self.mean_tensor
        return self.net((orig_img - self.mean_tensor) / self.std_tensor)


def attack(net, loader, device):
    model = NormalizedClassifier(net, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]).to(device)
    model.eval()
    for images, _ in loader:
        images = images.to(device)
        print(model(images).argmax(1))
