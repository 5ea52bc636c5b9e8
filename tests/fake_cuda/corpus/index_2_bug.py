# kind: index
# source: https://github.com/ykdai/BasicPBC/issues/4
# fix: indices_new = torch.arange(0, n).to(all_matches_origin[0].device) before indexing it with the match mask
# expect: indices should be either on cpu or on the same device as the indexed tensor (cpu)
# message-1.13: indices should be either on cpu or on the same device as the indexed tensor (cpu)
# message-2.x: indices should be either on cpu or on the same device as the indexed tensor (cpu)
# sanitizer: mismatch
"""Evaluating a segment-matching network: the accuracy counts the pixels of
the segments whose predicted match equals the ground truth, selecting segment
ids from torch.arange with a boolean mask computed on the GPU."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

n_segments = 6
matcher = nn.Linear(8, n_segments).to(device)
descriptors = torch.randn(n_segments, 8)
segment_map = torch.randint(1, n_segments + 1, (16, 16))
ground_truth = torch.randperm(n_segments)

with torch.no_grad():
    scores = matcher(descriptors.to(device))
    indices0 = scores.argmax(dim=1)
    all_matches = ground_truth.to(device)
    correct = all_matches == indices0
    segments = torch.arange(0, all_matches.shape[0])[correct]  # BUG:op # BUG:stray
    segment = segment_map.to(device)
    area = torch.tensor([(segment == ii + 1).sum() for ii in segments]).sum()
    area_accuracy = area / segment.numel()
print("area accuracy", round(float(area_accuracy), 4))
