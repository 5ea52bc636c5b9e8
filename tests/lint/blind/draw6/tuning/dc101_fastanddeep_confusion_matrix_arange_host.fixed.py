# devcheck bug corpus: DC101
# From: https://github.com/JulianGoeltz/fastAndDeep/pull/8
# Fixed: the row of class ids is moved to the device, the per-class counts
# come back with .cpu(), and the accuracy compares on the device and reads
# the result after .cpu().
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


def run_inference(dataset, device, net):
    inputs, labels = dataset
    with torch.no_grad():
        outputs = net(torch.as_tensor(inputs, dtype=torch.float32, device=device))
    selected_classes = outputs.argmax(1)
    return outputs, selected_classes, torch.as_tensor(labels)


def confusion_matrix(dataset, device=None, net=None):
    if device is None:
        device = torch.device("cpu")
    outputs, selected_classes, labels = run_inference(dataset, device, net)
    num_labels = len(np.unique(labels))
    correct_per_pattern = np.zeros((num_labels, num_labels))
    for label in range(num_labels):
        idcs = labels == label
        classifications = selected_classes[idcs].reshape((-1, 1)) == torch.arange(num_labels).reshape((1, -1)).to(device)  # <- fixed
        correct_per_pattern[label] = classifications.sum(axis=0).cpu() / idcs.sum()  # <- fixed
    accuracy = torch.eq(selected_classes, torch.Tensor(labels).to(device)).cpu().numpy().astype(float).mean()  # <- fixed
    print(f"accuracy {accuracy}")
    return correct_per_pattern


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    rng = np.random.default_rng(0)
    data = (rng.normal(size=(300, 4)).astype(np.float32), rng.integers(0, 3, size=300))
    print(confusion_matrix(data, device=device, net=net))
