# devcheck bug corpus: DC103
# From: https://github.com/weecology/DeepForest/issues/1390
# From: https://github.com/weecology/DeepForest/pull/1391
# Fixed: the helper moves the input to the device of the model's parameters.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from PIL import Image


class TreeDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 16, 3, padding=1)
        self.head = nn.Conv2d(16, 5, 1)

    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


def _predict_image_(model, image, nms_thresh):
    image = torch.tensor(image).permute(2, 0, 1)  # <- fixed
    image = image / 255
    image = image.to(next(model.parameters()).device)  # <- fixed
    with torch.no_grad():
        prediction = model(image.unsqueeze(0))
    return prediction[prediction[:, 4] > nms_thresh]


def predict_image(model, path):
    image = np.array(Image.open(path).convert("RGB")).astype("float32")
    return _predict_image_(model=model, image=image, nms_thresh=0.05)


def main(path):
    model = TreeDetector()
    model.to("cuda")
    return predict_image(model, path)
