# devcheck bug corpus: DC122
# From: https://github.com/apple/pfl-research/pull/76
# Fixed: the model is put on the default device before the central optimizer
# is made.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def get_default_device():
    return torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


class CNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def make_model_and_optimizer(learning_rate):
    model = CNN()
    model = model.to(get_default_device())  # <- fixed
    central_optimizer = torch.optim.Adagrad(model.parameters(), lr=learning_rate)  # <- fixed
    return model, central_optimizer


def central_step(model, optimizer, images, labels):
    device = get_default_device()
    loss = nn.functional.cross_entropy(model(images.to(device)), labels.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
