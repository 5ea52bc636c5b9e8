# devcheck bug corpus: DC121
# From: https://github.com/pytorch/pytorch/issues/37930
# The usual DDP flow moved the model to its GPU and then converted its batch
# norms with SyncBatchNorm.convert_sync_batchnorm, which made the new layers'
# parameters on the CPU: DDP then found parameters on two devices. The fix
# converted before moving.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def build(cuda_idx):
    model = nn.Sequential(nn.Linear(20, 100), nn.BatchNorm1d(100))
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)  # <- fixed
    model.to(cuda_idx)  # <- fixed
    return DDP(model, device_ids=[cuda_idx])
