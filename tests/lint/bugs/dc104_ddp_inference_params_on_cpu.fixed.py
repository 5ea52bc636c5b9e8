# devcheck bug corpus: DC104
# From: https://github.com/pytorch/pytorch/issues/100243
# A DDP inference script wraps a freshly built model with
# device_ids=[LOCAL_RANK] without moving it: "module parameters
# {device(type='cpu')}".
# Written for devcheck's tests after the thread; not the project's code.
import os
import torch
import torch.nn as nn
import torch.distributed as dist

LOCAL_RANK = int(os.environ.get("LOCAL_RANK", 0))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


def main(opt):
    dist.init_process_group("nccl")
    torch.cuda.set_device(LOCAL_RANK)
    model = Classifier()
    model.load_state_dict(torch.load(opt.weights, map_location="cpu"))
    model = model.to(LOCAL_RANK)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[LOCAL_RANK], output_device=LOCAL_RANK)  # <- fixed
    return model
