# devcheck bug corpus: DC101
# From: https://github.com/AlbinZhu/yolov7-polygon-detection/issues/7
# Fixed as the thread tells it: the IoU computed from the shapely helper's host
# tensors is moved to the loss's device before the CIoU terms meet it (the
# helper's zeros stay on the CPU).
# Written for devcheck's tests after the thread; not the project's code.
import math

import shapely.geometry
import torch
import torch.nn as nn


def order_corners(boxes):
    # sort each quadrilateral's corners by angle around its centre
    pts = boxes.view(-1, 4, 2)
    centre = pts.mean(dim=1, keepdim=True)
    angles = torch.atan2(pts[..., 1] - centre[..., 1], pts[..., 0] - centre[..., 0])
    idx = angles.argsort(dim=1)
    return torch.gather(pts, 1, idx.unsqueeze(-1).expand(-1, -1, 2)).view(-1, 8)


def polygon_inter_union_cpu(boxes1, boxes2):
    n = boxes1.shape[0]
    inter = torch.zeros(n)  # <- fixed
    union = torch.zeros(n)  # <- fixed
    for i in range(n):
        p1 = shapely.geometry.Polygon(boxes1[i].view(4, 2).tolist()).convex_hull
        p2 = shapely.geometry.Polygon(boxes2[i].view(4, 2).tolist()).convex_hull
        if p1.intersects(p2):
            inter[i] = p1.intersection(p2).area
            union[i] = p1.union(p2).area
    return inter, union


def polygon_bbox_iou(boxes1, boxes2, CIoU=False, eps=1e-7, device="cpu"):
    boxes1 = order_corners(boxes1.clone().to(device))
    boxes2 = order_corners(boxes2.clone().to(device))
    inter, union = polygon_inter_union_cpu(boxes1.detach().cpu(), boxes2.detach().cpu())
    union += eps
    iou = inter / union
    iou[torch.isnan(iou)] = 0.0
    if CIoU:
        b1x1, b1x2 = boxes1[:, 0::2].min(1)[0], boxes1[:, 0::2].max(1)[0]
        b1y1, b1y2 = boxes1[:, 1::2].min(1)[0], boxes1[:, 1::2].max(1)[0]
        b2x1, b2x2 = boxes2[:, 0::2].min(1)[0], boxes2[:, 0::2].max(1)[0]
        b2y1, b2y2 = boxes2[:, 1::2].min(1)[0], boxes2[:, 1::2].max(1)[0]
        cw = torch.max(b1x2, b2x2) - torch.min(b1x1, b2x1)
        ch = torch.max(b1y2, b2y2) - torch.min(b1y1, b2y1)
        c2 = cw ** 2 + ch ** 2 + eps
        rho2 = ((b2x1 + b2x2 - b1x1 - b1x2) ** 2 + (b2y1 + b2y2 - b1y1 - b1y2) ** 2) / 4
        w1, h1 = b1x2 - b1x1, b1y2 - b1y1 + eps
        w2, h2 = b2x2 - b2x1, b2y2 - b2y1 + eps
        v = (4 / math.pi ** 2) * torch.pow(torch.atan(w2 / h2) - torch.atan(w1 / h1), 2)
        iou = iou.to(device)  # <- fixed
        with torch.no_grad():
            alpha = v / (v - iou + (1 + eps))
        iou -= rho2 / c2 + v * alpha
    return iou


class PolygonComputeLoss:
    def __init__(self, model):
        self.device = next(model.parameters()).device
        self.bce = nn.BCEWithLogitsLoss()

    def __call__(self, pbox, tbox, pobj, tobj):
        iou = polygon_bbox_iou(pbox, tbox, CIoU=True, device=self.device)
        lbox = (1.0 - iou).mean()
        lobj = self.bce(pobj, tobj)
        return lbox + lobj


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = nn.Conv2d(3, 9, 1).to(device)
    criterion = PolygonComputeLoss(model)
    pbox = (torch.rand(16, 8, device=device) * 64).requires_grad_()
    tbox = torch.rand(16, 8, device=device) * 64
    pobj = torch.randn(16, device=device)
    tobj = torch.ones(16, device=device)
    loss = criterion(pbox, tbox, pobj, tobj)
    loss.backward()
