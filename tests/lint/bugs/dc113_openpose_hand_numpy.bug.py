# devcheck bug corpus: DC113
# From: https://github.com/Hzzone/pytorch-openpose/pull/16
# The hand keypoint estimator moves the model and the input to CUDA when it is
# available, then reads self.model(data).numpy(): "can't convert CUDA tensor to
# numpy".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class HandPoseModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(3, 22, 3, padding=1)

    def forward(self, x):
        return self.net(x)


class Hand(object):
    def __init__(self, model_path):
        self.model = HandPoseModel()
        if torch.cuda.is_available():
            self.model = self.model.cuda()
        self.model.load_state_dict(torch.load(model_path, map_location="cpu"))
        self.model.eval()

    def __call__(self, image):
        im = np.ascontiguousarray(np.transpose(image[:, :, :, np.newaxis], (3, 2, 0, 1)) / 256 - 0.5)
        data = torch.from_numpy(im).float()
        if torch.cuda.is_available():
            data = data.cuda()
        with torch.no_grad():
            output = self.model(data).numpy()  # <- bug
        return np.squeeze(output)
