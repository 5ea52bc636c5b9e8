# devcheck bug corpus: DC101
# From: https://github.com/IDEA-Research/detrex/pull/295
# From: https://github.com/IDEA-Research/detrex/commit/52da9b3ecd8bbc74b60df0c10fce450c3a5847fb
# The fix (PR #295, commit 52da9b3) makes the anchor numbering with
# device=anchors.device, so the mask from the matching indexes a tensor on its own
# device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torchvision.ops import box_iou


def box_cxcywh_to_xyxy(b):
    cx, cy, w, h = b.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


def sample_topk_per_gt(pr_inds, gt_inds, iou, k):
    if len(gt_inds) == 0:
        return pr_inds, gt_inds
    gt_inds2, counts = gt_inds.unique(return_counts=True)
    scores, pr_inds2 = iou[gt_inds2].topk(k, dim=1)
    gt_inds2 = gt_inds2[:, None].repeat(1, k)
    keep = torch.arange(k, device=counts.device)[None] < counts[:, None]
    return pr_inds2[keep], gt_inds2[keep]


class Stage1Assigner(nn.Module):
    def __init__(self, t_low=0.3, t_high=0.7, max_k=4):
        super().__init__()
        self.t_low, self.t_high, self.k = t_low, t_high, max_k

    def match(self, iou):
        vals, matched_idxs = iou.max(dim=0)
        labels = torch.full_like(matched_idxs, -1)
        labels[vals < self.t_low] = 0
        labels[vals >= self.t_high] = 1
        labels[iou.argmax(dim=1)] = 1
        return matched_idxs, labels

    def forward(self, outputs, targets):
        indices = []
        for b in range(len(targets)):
            anchors = outputs["anchors"][b]
            if len(targets[b]["boxes"]) == 0:
                empty = torch.tensor([], dtype=torch.long, device=anchors.device)
                indices.append((empty, empty))
                continue
            iou = box_iou(box_cxcywh_to_xyxy(targets[b]["boxes"]), box_cxcywh_to_xyxy(anchors))
            matched_idxs, matched_labels = self.match(iou)
            all_pr_inds = torch.arange(len(anchors), device=anchors.device)  # <- fixed
            pos_pr_inds = all_pr_inds[matched_labels == 1]
            pos_gt_inds = matched_idxs[pos_pr_inds]
            pos_pr_inds, pos_gt_inds = sample_topk_per_gt(pos_pr_inds, pos_gt_inds, iou, self.k)
            indices.append((pos_pr_inds.to(anchors.device), pos_gt_inds.to(anchors.device)))
        return indices


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assigner = Stage1Assigner().to(device)
    outputs = {"anchors": torch.rand(2, 900, 4, device=device)}
    targets = [{"boxes": torch.rand(5, 4, device=device)}, {"boxes": torch.rand(3, 4, device=device)}]
    print([len(p) for p, _ in assigner(outputs, targets)])
