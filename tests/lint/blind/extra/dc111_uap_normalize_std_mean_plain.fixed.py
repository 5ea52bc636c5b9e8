# devcheck bug corpus: DC111
# From: https://github.com/mattbev/6.867-final-project/issues/7
# Fixed: the mean and standard deviation are registered as buffers, which move
# with the model.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class NormalizedClassifier(nn.Module):
    def __init__(self, net, mean, std):
        super().__init__()
        self.net = net
        self.register_buffer("mean_tensor", torch.tensor(mean).view(1, 3, 1, 1))  # <- fixed
        self.register_buffer("std_tensor", torch.tensor(std).view(1, 3, 1, 1))  # <- fixed

    def forward(self, x):
        orig_img = x * self.std_tensor + self.mean_tensor
        return self.net((orig_img - self.mean_tensor) / self.std_tensor)


def attack(net, loader, device):
    model = NormalizedClassifier(net, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]).to(device)
    model.eval()
    for images, _ in loader:
        images = images.to(device)
        print(model(images).argmax(1))
