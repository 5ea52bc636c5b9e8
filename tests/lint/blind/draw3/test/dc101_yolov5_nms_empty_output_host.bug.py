# devcheck bug corpus: DC101
# From: https://github.com/ultralytics/yolov5/issues/1617
# YOLOv5 from torch hub, moved to cuda:0 and wrapped by autoshape, run on a
# batch of PIL images where one image has no detections. Non-max
# suppression prefilled its per-image outputs with torch.zeros(0, 6), on the
# CPU, and replaced only the entries of images with candidates by CUDA
# tensors; the Detections container then took its normalisation gains on
# the device of the first image's (empty, CPU) output and divided the other
# images' CUDA boxes by them: a device mismatch. Fixed by PR #1619 ("Hub
# device mismatch bug fix"): the empty outputs are made on the
# prediction's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torchvision
from torch import nn


def xywh2xyxy(x):
    y = x.clone()
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, max_det=300):
    xc = prediction[..., 4] > conf_thres
    output = [torch.zeros(0, 6)] * prediction.shape[0]  # <- bug
    for xi, x in enumerate(prediction):
        x = x[xc[xi]]
        if not x.shape[0]:
            continue
        x[:, 5:] *= x[:, 4:5]
        box = xywh2xyxy(x[:, :4])
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = torch.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        i = torchvision.ops.nms(x[:, :4] + x[:, 5:6] * 4096, x[:, 4], iou_thres)[:max_det]
        output[xi] = x[i]
    return output


class Detections:
    def __init__(self, imgs, pred):
        d = pred[0].device
        gn = [torch.tensor([*[im.shape[i] for i in [1, 0, 1, 0]], 1.0, 1.0], device=d) for im in imgs]
        self.imgs = imgs
        self.pred = pred
        self.xyxyn = [x / g for x, g in zip(pred, gn)]


class AutoShape(nn.Module):
    def __init__(self, model, size=640):
        super().__init__()
        self.model = model.eval()
        self.size = size

    @torch.no_grad()
    def forward(self, imgs):
        p = next(self.model.parameters())
        x = torch.stack([torch.from_numpy(im).permute(2, 0, 1).float() / 255 for im in imgs]).to(p.device)
        y = non_max_suppression(self.model(x)[0])
        return Detections(imgs, y)
