# Per-sample copies to the device in a loop (the batching finding), then a
# clean batched copy.
import torch

data = torch.rand(200, 3)
samples = [data[i].to("meta") for i in range(data.shape[0])]  # MARK:py_copy
batch = data.to("meta")
print("copies", len(samples), batch.device)
