# devcheck bug corpus: DC112
# From: https://github.com/open-mmlab/mmdetection/pull/7521
# Fixed: the loss takes the device of the head's score maps and passes it to
# get_anchors, so the anchors are made on the card the model runs on instead
# of the default 'cuda' (cuda:0).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class AnchorGenerator:
    def __init__(self, strides=(8, 16, 32, 64, 128), sizes=(32, 64, 128, 256, 512)):
        self.strides, self.sizes = strides, sizes

    def grid_anchors(self, featmap_sizes, device="cuda"):
        out = []
        for (h, w), stride, size in zip(featmap_sizes, self.strides, self.sizes):
            ys = (torch.arange(h, device=device) + 0.5) * stride
            xs = (torch.arange(w, device=device) + 0.5) * stride
            cy, cx = torch.meshgrid(ys, xs, indexing="ij")
            half = size / 2
            out.append(torch.stack([cx - half, cy - half, cx + half, cy + half], -1).view(-1, 4))
        return out


class FreeAnchorRetinaHead(nn.Module):
    def __init__(self, num_classes=80, in_channels=256):
        super().__init__()
        self.cls_out_channels = num_classes
        self.retina_cls = nn.Conv2d(in_channels, num_classes, 3, padding=1)
        self.retina_reg = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.anchor_generator = AnchorGenerator()

    def forward(self, feats):
        return [self.retina_cls(f) for f in feats], [self.retina_reg(f) for f in feats]

    def get_anchors(self, featmap_sizes, img_metas, device="cuda"):
        multi_level = self.anchor_generator.grid_anchors(featmap_sizes, device=device)
        return [multi_level for _ in img_metas], None

    def loss(self, cls_scores, bbox_preds, gt_bboxes, img_metas):
        featmap_sizes = [featmap.size()[-2:] for featmap in cls_scores]
        device = cls_scores[0].device  # <- fixed
        anchor_list, _ = self.get_anchors(featmap_sizes, img_metas, device=device)  # <- fixed
        anchors = [torch.cat(anchor) for anchor in anchor_list]
        bbox_preds = torch.cat([b.permute(0, 2, 3, 1).reshape(b.size(0), -1, 4) for b in bbox_preds], 1)
        cls_prob = torch.cat([c.permute(0, 2, 3, 1).reshape(c.size(0), -1, self.cls_out_channels)
                              for c in cls_scores], 1).sigmoid()
        losses = []
        for anchors_, deltas_, probs_, gts_ in zip(anchors, bbox_preds, cls_prob, gt_bboxes):
            pred_boxes = anchors_ + deltas_ * 16.0
            iou_proxy = -(pred_boxes[None] - gts_[:, None]).abs().sum(-1)
            _, matched = iou_proxy.topk(50, dim=1)
            losses.append(-(probs_[matched].max(-1).values + 1e-6).log().mean())
        return {"positive_bag_loss": torch.stack(losses).mean()}


def train(feat_loader, gpu_id=2):
    device = torch.device(f"cuda:{gpu_id}")
    head = FreeAnchorRetinaHead().to(device)
    optimizer = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.9)
    for feats, gt_bboxes, img_metas in feat_loader:
        feats = [f.to(device) for f in feats]
        gt_bboxes = [g.to(device) for g in gt_bboxes]
        cls_scores, bbox_preds = head(feats)
        loss = head.loss(cls_scores, bbox_preds, gt_bboxes, img_metas)["positive_bag_loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
