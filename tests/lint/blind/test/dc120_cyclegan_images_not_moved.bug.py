# devcheck bug corpus: DC120
# From: https://github.com/eveningglow/multitask-CycleGAN/issues/3
# A multitask CycleGAN's training loop moved the generators and the classifier
# to the GPU but fed them the loader's images and labels as they came: "Input
# type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be
# the same". The fix moved image and label with .cuda().
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def train(dataset, classifier, epochs):
    classifier = classifier.cuda()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=2e-4)
    loader = DataLoader(dataset, batch_size=16, shuffle=True)
    for epoch in range(epochs):
        for image, label in loader:
            out = classifier(image)  # <- bug
            loss = criterion(out, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
