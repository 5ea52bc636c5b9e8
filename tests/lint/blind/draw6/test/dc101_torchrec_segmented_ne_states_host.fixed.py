# devcheck bug corpus: DC101
# From: https://github.com/meta-pytorch/torchrec/pull/1589
# The fix builds the four per-group accumulators with .to(labels.device), so
# they sit on the device of the labels, predictions and the metric's states,
# and update() adds like to like.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict

import torch
from torchmetrics import Metric


def cross_entropy_terms(labels, predictions, weights, eta):
    p = predictions.clamp(eta, 1 - eta)
    return -weights * (labels * torch.log2(p) + (1 - labels) * torch.log2(1 - p))


def segmented_ne_states(labels, predictions, weights, grouping_keys, eta, num_groups) -> Dict[str, torch.Tensor]:
    groups = torch.unique(grouping_keys)
    ce_sum, n_weighted, n_pos, n_neg = (
        torch.zeros(num_groups).to(labels.device),  # <- fixed
        torch.zeros(num_groups).to(labels.device),  # <- fixed
        torch.zeros(num_groups).to(labels.device),  # <- fixed
        torch.zeros(num_groups).to(labels.device),  # <- fixed
    )
    for group in groups:
        mask = grouping_keys == group
        g_labels, g_preds, g_weights = labels[mask], predictions[mask], weights[mask]
        ce_sum[group] = torch.sum(cross_entropy_terms(g_labels, g_preds, g_weights, eta)).item()
        n_weighted[group] = torch.sum(g_weights).item()
        n_pos[group] = torch.sum(g_weights * g_labels).item()
        n_neg[group] = torch.sum(g_weights * (1.0 - g_labels)).item()
    return {
        "cross_entropy_sum": ce_sum,
        "weighted_num_samples": n_weighted,
        "pos_labels": n_pos,
        "neg_labels": n_neg,
    }


class SegmentedNEComputation(Metric):
    def __init__(self, num_groups=2):
        super().__init__()
        self.num_groups = num_groups
        self.eta = 1e-12
        for name in ("cross_entropy_sum", "weighted_num_samples", "pos_labels", "neg_labels"):
            self.add_state(name, torch.zeros(num_groups, dtype=torch.double), dist_reduce_fx="sum")

    def update(self, predictions, labels, weights, grouping_keys):
        states = segmented_ne_states(labels, predictions, weights, grouping_keys, self.eta, self.num_groups)
        for name, value in states.items():
            state = getattr(self, name)
            state += value

    def compute(self):
        mean_label = self.pos_labels / self.weighted_num_samples
        norm = -(mean_label * torch.log2(mean_label) + (1 - mean_label) * torch.log2(1 - mean_label))
        return self.cross_entropy_sum / (norm * self.weighted_num_samples)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    metric = SegmentedNEComputation(num_groups=3).to(device)
    for _ in range(4):
        predictions = torch.rand(256, device=device)
        labels = (torch.rand(256, device=device) > 0.7).float()
        weights = torch.ones(256, device=device)
        grouping_keys = torch.randint(0, 3, (256,), device=device)
        metric.update(predictions, labels, weights, grouping_keys)
    print(metric.compute())


if __name__ == "__main__":
    main()
