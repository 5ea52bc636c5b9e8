# devcheck bug corpus: DC103
# From: https://github.com/mindee/doctr/pull/1039
# Fixed: each batch is moved to the device of the model's parameters before
# the classifier is called on it.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn


class PreProcessor:
    def __init__(self, batch_size=64):
        self.batch_size = batch_size

    def __call__(self, crops):
        batches = []
        for i in range(0, len(crops), self.batch_size):
            chunk = np.stack(crops[i : i + self.batch_size]).astype(np.float32) / 255.0
            batches.append(torch.from_numpy(chunk).permute(0, 3, 1, 2))
        return batches


class CropOrientationPredictor(nn.Module):
    def __init__(self, pre_processor, model):
        super().__init__()
        self.pre_processor = pre_processor
        self.model = model.eval()

    @torch.no_grad()
    def forward(self, crops):
        processed_batches = self.pre_processor(crops)
        _device = next(self.model.parameters()).device
        predicted_batches = [self.model(batch.to(device=_device)) for batch in processed_batches]  # <- fixed
        return [int(c) for batch in predicted_batches for c in batch.argmax(dim=1).cpu()]


def main(crops):
    classifier = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    predictor = CropOrientationPredictor(PreProcessor(), classifier).cuda()
    print(predictor(crops))
