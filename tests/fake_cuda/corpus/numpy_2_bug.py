# kind: numpy
# source: https://github.com/WongKinYiu/yolor/issues/113
# fix: return self.cpu().numpy() / move the detections to the host before np.array
# expect: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.
# sanitizer: none
"""Plotting helper of a detector's test loop: output_to_target turns the
per-image detections into rows [image, class, x, y, w, h, conf] with np.array."""
import numpy as np
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def xyxy2xywh(x):
    y = x.clone()
    y[:, 0], y[:, 1] = (x[:, 0] + x[:, 2]) / 2, (x[:, 1] + x[:, 3]) / 2
    y[:, 2], y[:, 3] = x[:, 2] - x[:, 0], x[:, 3] - x[:, 1]
    return y


def output_to_target(output, width, height):
    targets = []
    for i, o in enumerate(output):
        if o is not None:
            for pred in o:
                box = pred[:4]
                w, h = (box[2] - box[0]) / width, (box[3] - box[1]) / height
                x, y = box[0] / width + w / 2, box[1] / height + h / 2
                conf, cls = pred[4], int(pred[5])
                targets.append([i, cls, float(x), float(y), float(w), float(h), conf])  # BUG:stray
    return np.array(targets)  # BUG:op


detections = []
for image in range(2):
    boxes = torch.rand(3, 4, device=device) * 32
    boxes[:, 2:] += boxes[:, :2]
    conf = torch.rand(3, 1, device=device)
    cls = torch.randint(0, 5, (3, 1), device=device).float()
    detections.append(torch.cat([boxes, conf, cls], 1))
print(output_to_target(detections, 64, 64).shape)
