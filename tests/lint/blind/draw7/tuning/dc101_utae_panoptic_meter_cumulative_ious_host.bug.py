# devcheck bug corpus: DC101
# From: https://github.com/VSainteuf/utae-paps/issues/3
# The panoptic meter keeps its running IoU sums in a tensor made with
# torch.zeros on the CPU; test_panoptic.py feeds it the model's predictions and
# the targets on the GPU, so the matched IoUs are CUDA tensors and adding their
# sum into the CPU accumulator fails.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PanopticMeter:
    def __init__(self, num_classes=20, background_label=0, void_label=19, iou_threshold=0.5):
        self.iou_threshold = iou_threshold
        self.class_list = [c for c in range(num_classes) if c not in (background_label, void_label)]
        self.counts = torch.zeros((len(self.class_list), 3))
        self.cumulative_ious = torch.zeros(len(self.class_list))  # <- bug

    def add(self, predictions, target):
        instance_true, semantic_true = target[..., 0], target[..., 1]
        instance_pred = predictions["pano_instance"]
        semantic_pred = predictions["pano_semantic"].argmax(dim=1)
        for i, class_id in enumerate(self.class_list):
            tp, n_pred, n_true, ious = 0, 0, 0, []
            for b in range(instance_true.shape[0]):
                gt = instance_true[b] * (semantic_true[b] == class_id)
                pr = instance_pred[b] * (semantic_pred[b] == class_id)
                gt_ids, pr_ids = torch.unique(gt), torch.unique(pr)
                n_true += int(gt_ids.shape[0]) - 1
                n_pred += int(pr_ids.shape[0]) - 1
                for t in gt_ids[gt_ids != 0]:
                    for p in pr_ids[pr_ids != 0]:
                        inter = ((gt == t) & (pr == p)).sum()
                        union = (gt == t).sum() + (pr == p).sum() - inter
                        iou = inter.float() / union.float()
                        if iou > self.iou_threshold:
                            tp += 1
                            ious.append(iou)
            self.counts[i] += torch.tensor([tp, n_pred - tp, n_true - tp])
            if len(ious) > 0:
                self.cumulative_ious[i] += torch.stack(ious).sum()  # <- bug

    def value(self):
        tp, fp, fn = self.counts.float().chunk(3, dim=-1)
        sq = self.cumulative_ious / tp.squeeze()
        sq[torch.isnan(sq) | torch.isinf(sq)] = 0
        rq = tp / (tp + 0.5 * fp + 0.5 * fn)
        pq = sq * rq.squeeze(-1)
        return sq.mean(), rq.mean(), pq.mean()


class PaPsHead(nn.Module):
    def __init__(self, in_ch=10, num_classes=20):
        super().__init__()
        self.semantic = nn.Conv2d(in_ch, num_classes, 1)

    def forward(self, x):
        sem = self.semantic(x)
        return {"pano_semantic": sem, "pano_instance": sem.argmax(dim=1) % 7}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    config = parser.parse_args()
    device = torch.device(config.device)
    model = PaPsHead().to(device).eval()
    images = torch.randn(16, 10, 32, 32)
    targets = torch.randint(0, 20, (16, 32, 32, 2))
    loader = DataLoader(TensorDataset(images, targets), batch_size=4)
    pano_meter = PanopticMeter()
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            predictions = model(x)
            pano_meter.add(predictions, y)
    print("SQ RQ PQ", pano_meter.value())


if __name__ == "__main__":
    main()
