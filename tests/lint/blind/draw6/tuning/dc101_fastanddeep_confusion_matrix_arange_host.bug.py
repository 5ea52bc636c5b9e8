# devcheck bug corpus: DC101
# From: https://github.com/JulianGoeltz/fastAndDeep/pull/8
# The evaluation script's confusion matrix compares the predicted classes,
# which come back from inference on the chosen device, with a row of class
# ids made by torch.arange(num_labels) on the CPU; with CUDA on, the
# comparison meets cuda:0 and cpu. The accuracy line then took .numpy() of
# a comparison that lives on the GPU.
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
        classifications = selected_classes[idcs].reshape((-1, 1)) == torch.arange(num_labels).reshape((1, -1))  # <- bug
        correct_per_pattern[label] = classifications.sum(axis=0) / idcs.sum()
    accuracy = torch.eq(selected_classes, labels).detach().numpy().astype(float).mean()  # <- bug
    print(f"accuracy {accuracy}")
    return correct_per_pattern


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    rng = np.random.default_rng(0)
    data = (rng.normal(size=(300, 4)).astype(np.float32), rng.integers(0, 3, size=300))
    print(confusion_matrix(data, device=device, net=net))
