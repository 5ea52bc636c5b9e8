"""torchvision's ResNet-18 (torchvision.models, with its BatchNorm and its own
weight init) trained for three SGD steps on tiny synthetic images, then
evaluated; the device is the program's argument ("cuda" or "cpu").

Prints one JSON line: the losses, the eval logits' sum and a SHA-256 of every
parameter and buffer after training, which the CPU run must reproduce bitwise.
"""
import hashlib
import json
import sys

import torch
import torchvision


def digest(module):
    h = hashlib.sha256()
    for name, t in list(module.state_dict().items()):
        h.update(name.encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


def main(device):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    g = torch.Generator().manual_seed(1)
    images = torch.randn(12, 3, 32, 32, generator=g)
    labels = torch.randint(0, 10, (12,), generator=g)
    losses = []
    model.train()
    for step in range(3):
        x = images[step * 4:(step + 1) * 4].to(device)
        y = labels[step * 4:(step + 1) * 4].to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(images.to(device))
    print(json.dumps({"device": str(next(model.parameters()).device), "losses": losses,
                      "logits_sum": logits.sum().item(), "state": digest(model)}))


if __name__ == "__main__":
    main(sys.argv[1])
