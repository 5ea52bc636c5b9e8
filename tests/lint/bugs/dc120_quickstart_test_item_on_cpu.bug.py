# devcheck bug corpus: DC120
# From: https://github.com/pytorch/tutorials/pull/1657
# The quickstart tutorial's last step takes one test image and label from the
# dataset and calls the model on the GPU with them: "Expected all tensors to be
# on the same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from torchvision import datasets
from torchvision.transforms import ToTensor

device = "cuda" if torch.cuda.is_available() else "cpu"
test_data = datasets.FashionMNIST(root="data", train=False, download=True, transform=ToTensor())


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.stack(self.flatten(x))


model = NeuralNetwork().to(device)
model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    pred = model(x)  # <- bug
    print(pred[0].argmax(0), y)
