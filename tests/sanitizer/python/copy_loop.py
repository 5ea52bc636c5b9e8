# Per-sample copies to the device in a loop (the batching finding), then a
# clean batched copy. The device is argv[1], default cuda (the tests run it
# under fake CUDA, and on meta, where nothing is copied).
import sys

import torch

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
data = torch.rand(200, 3)
samples = [data[i].to(device) for i in range(data.shape[0])]  # MARK:py_copy
batch = data.to(device)
print("copies", len(samples), batch.device)
