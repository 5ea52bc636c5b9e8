# devcheck bug corpus: DC112
# From: https://github.com/marco-rudolph/AST/issues/4
# Training with device = "cpu" in the configuration still failed with "Torch
# not compiled with CUDA enabled": the training code called .cuda() in places
# instead of using the configured device.
# Written for devcheck's tests after the thread; not the project's code.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(student, teacher, train_loader, optimizer, meta_epochs):
    teacher.to(device)
    student.to(device)
    for epoch in range(meta_epochs):
        for data in train_loader:
            images, depth = data
            images = images.cuda()  # <- bug
            depth = depth.cuda()  # <- bug
            with torch.no_grad():
                target = teacher(images, depth)
            loss = ((student(images, depth) - target) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
