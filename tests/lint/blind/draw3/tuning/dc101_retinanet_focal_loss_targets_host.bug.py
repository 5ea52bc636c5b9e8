# devcheck bug corpus: DC101
# From: https://github.com/yhenon/pytorch-retinanet/pull/71
# After the hard-coded .cuda() calls were taken out so that RetinaNet could
# run on any device, the focal loss still made its per-image targets, its
# alpha factors, the regression normalisation and the empty-image zero losses
# with torch factories and no device: on the CPU, while the classifications
# and regressions it combines them with came from the model on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def box_iou(a, b):
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    iw = (torch.min(a[:, None, 2], b[:, 2]) - torch.max(a[:, None, 0], b[:, 0])).clamp(min=0)
    ih = (torch.min(a[:, None, 3], b[:, 3]) - torch.max(a[:, None, 1], b[:, 1])).clamp(min=0)
    inter = iw * ih
    return inter / (area_a[:, None] + area_b - inter).clamp(min=1e-8)


class FocalLoss(nn.Module):
    def forward(self, classifications, regressions, anchors, annotations):
        alpha, gamma = 0.25, 2.0
        cls_losses, reg_losses = [], []
        anchor = anchors[0]
        aw = anchor[:, 2] - anchor[:, 0]
        ah = anchor[:, 3] - anchor[:, 1]
        ax = anchor[:, 0] + 0.5 * aw
        ay = anchor[:, 1] + 0.5 * ah
        for j in range(classifications.shape[0]):
            classification = classifications[j].clamp(1e-4, 1.0 - 1e-4)
            regression = regressions[j]
            boxes = annotations[j]
            boxes = boxes[boxes[:, 4] != -1]
            if boxes.shape[0] == 0:
                reg_losses.append(torch.tensor(0).float())  # <- bug
                cls_losses.append(torch.tensor(0).float())  # <- bug
                continue
            iou_max, iou_arg = torch.max(box_iou(anchor, boxes[:, :4]), dim=1)
            targets = torch.ones(classification.shape) * -1  # <- bug
            targets[torch.lt(iou_max, 0.4), :] = 0
            positive = torch.ge(iou_max, 0.5)
            assigned = boxes[iou_arg, :]
            targets[positive, :] = 0
            targets[positive, assigned[positive, 4].long()] = 1
            alpha_factor = torch.ones(targets.shape) * alpha  # <- bug
            alpha_factor = torch.where(targets == 1.0, alpha_factor, 1.0 - alpha_factor)
            weight = torch.where(targets == 1.0, 1.0 - classification, classification)
            weight = alpha_factor * weight.pow(gamma)
            bce = -(targets * torch.log(classification) + (1.0 - targets) * torch.log(1.0 - classification))
            loss = torch.where(targets != -1.0, weight * bce, torch.zeros_like(bce))
            cls_losses.append(loss.sum() / positive.sum().float().clamp(min=1.0))
            if positive.sum() > 0:
                a = assigned[positive]
                gw = (a[:, 2] - a[:, 0]).clamp(min=1)
                gh = (a[:, 3] - a[:, 1]).clamp(min=1)
                gx = a[:, 0] + 0.5 * gw
                gy = a[:, 1] + 0.5 * gh
                t = torch.stack(((gx - ax[positive]) / aw[positive], (gy - ay[positive]) / ah[positive],
                                 torch.log(gw / aw[positive]), torch.log(gh / ah[positive]))).t()
                t = t / torch.Tensor([[0.1, 0.1, 0.2, 0.2]])  # <- bug
                diff = torch.abs(t - regression[positive, :])
                reg_losses.append(torch.where(diff <= 1.0 / 9.0, 4.5 * diff.pow(2), diff - 0.5 / 9.0).mean())
            else:
                reg_losses.append(torch.tensor(0).float())  # <- bug
        return torch.stack(cls_losses).mean(dim=0, keepdim=True), torch.stack(reg_losses).mean(dim=0, keepdim=True)
