# devcheck bug corpus: DC120
# From: https://github.com/mlcommons/inference/issues/95
# The single-stage-detector inference benchmark moved the SSD300 model to the
# GPU when CUDA was asked for, then handed it with the validation dataset and
# the device to `coco_eval`, which read each image from the dataset and gave
# it to the model without moving it: "Input type (torch.FloatTensor) and
# weight type (torch.cuda.FloatTensor) should be the same" at
# `ploc, plabel = model(inp)`. The fix moves the input to the device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import Dataset


class COCODetection(Dataset):
    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return torch.as_tensor(self.images[idx], dtype=torch.float32), idx


class SSD300(nn.Module):
    def __init__(self, num_classes=81):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 256, 3, stride=8, padding=1), nn.ReLU())
        self.loc = nn.Conv2d(256, 4 * 4, 3, padding=1)
        self.conf = nn.Conv2d(256, 4 * num_classes, 3, padding=1)

    def forward(self, x):
        f = self.features(x)
        return self.loc(f), self.conf(f)


def coco_eval(model, coco, threshold, device):
    model.eval()
    results = []
    with torch.no_grad():
        for idx in range(len(coco)):
            img, img_id = coco[idx]
            inp = img.unsqueeze(0)
            ploc, plabel = model(inp)  # <- bug
            results.append((img_id, (plabel.softmax(1) > threshold).sum().item(), ploc.shape))
    return results


def eval_ssd300_mlperf_coco(args, images):
    ssd300 = SSD300()
    ssd300.load_state_dict(torch.load(args.checkpoint, map_location="cpu")["model"])
    if args.device == "cuda":
        ssd300.cuda()
    return coco_eval(ssd300, COCODetection(images), args.threshold, args.device)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--threshold", type=float, default=0.05)
    parser.add_argument("--device", default="cuda")
    print(eval_ssd300_mlperf_coco(parser.parse_args(), []))
