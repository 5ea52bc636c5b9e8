# devcheck bug corpus: DC113
# From: https://github.com/WongKinYiu/yolor/issues/113
# output_to_target turned the detector's outputs (CUDA tensors) into a NumPy
# array for plotting with np.array(targets): "can't convert cuda:0 device type
# tensor to numpy". The fix copied each box to the host.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def output_to_target(output):
    targets = []
    for i, o in enumerate(output):
        for *box, conf, cls in o:
            targets.append([i, cls.cpu(), *[b.cpu() for b in box], conf.cpu()])  # <- fixed
    return np.array(targets)  # <- fixed


def test(model, loader, device):
    for img, targets in loader:
        img = img.to(device)
        with torch.no_grad():
            output = model(img)
        plot_targets = output_to_target(output)
        print(plot_targets.shape)
