# devcheck bug corpus: DC120
# From: https://github.com/DashAISoftware/dashAI/pull/679
# An image classifier wrapper rebuilt its torchvision backbone from a saved
# checkpoint on the CPU (`torch.load(..., map_location="cpu")`) when a trained
# model was loaded in a fresh process, and its `predict` moved only the
# images to the device: "Input type (torch.cuda.FloatTensor) and weight type
# (torch.FloatTensor) should be the same". The fix moves the model to the
# device before the evaluation loop of `predict`.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchvision.models import resnet18


class ResNetImageClassifier:
    def __init__(self, num_classes):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = resnet18(num_classes=num_classes)

    def fit(self, loader, epochs=1):
        self.model.to(self.device)
        optimizer = torch.optim.Adam(self.model.parameters())
        criterion = nn.CrossEntropyLoss()
        for _ in range(epochs):
            for images, labels in loader:
                images, labels = images.to(self.device), labels.to(self.device)
                loss = criterion(self.model(images), labels)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

    @classmethod
    def load(cls, path, num_classes):
        obj = cls(num_classes)
        obj.model.load_state_dict(torch.load(path, map_location="cpu"))
        return obj

    def predict(self, loader):
        self.model.eval()
        probabilities = []
        with torch.no_grad():
            for images in loader:
                images = images.to(self.device)
                logits = self.model(images)  # <- bug
                probabilities.append(torch.softmax(logits, dim=1).cpu())
        return torch.cat(probabilities)


def predict_saved(path, loader):
    classifier = ResNetImageClassifier.load(path, num_classes=10)
    return classifier.predict(loader)
