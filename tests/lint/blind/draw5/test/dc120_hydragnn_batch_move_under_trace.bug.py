# devcheck bug corpus: DC120
# From: https://github.com/ORNL/HydraGNN/pull/251
# HydraGNN's training step: an earlier change (delaying the host-to-device
# copy) put the move of each graph batch inside the tracing branch, so with
# tracing off (trace_level 0, the default) the PyG batch stays on the host
# and reaches the model on the GPU; DDP does not move a PyG Batch itself.
# Written for devcheck's tests after the thread; not the project's code.
import contextlib

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch_geometric.nn import GCNConv, global_mean_pool


def get_device():
    return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


class Base(nn.Module):
    def __init__(self, in_dim=16, hidden=64):
        super().__init__()
        self.conv = GCNConv(in_dim, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, data):
        x = self.conv(data.x, data.edge_index).relu()
        return self.head(global_mean_pool(x, data.batch))

    def loss(self, pred, value, head_index=None):
        loss = nn.functional.mse_loss(pred.squeeze(-1), value)
        return loss, [loss]


def get_distributed_model(model):
    device = get_device()
    model = model.to(device)
    if dist.is_initialized():
        model = DistributedDataParallel(model, device_ids=[device] if device.type == "cuda" else None)
    return model


class Tracer:
    def start(self, name, **kw):
        pass

    def stop(self, name, **kw):
        pass


def train(loader, model, optimizer, trace_level=0, tr=Tracer()):
    model.train()
    total = 0.0
    for data in loader:
        optimizer.zero_grad()
        with contextlib.nullcontext():
            if trace_level > 0:
                tr.start("h2d")
                data = data.to(get_device())  # <- bug
                tr.stop("h2d")
            pred = model(data)
            loss, tasks_loss = model.module.loss(pred, data.y, None)
        loss.backward()
        optimizer.step()
        total += loss.item() * data.num_graphs
    return total / len(loader.dataset)


def run_training(loader, epochs=10):
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    model = get_distributed_model(Base())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        print(epoch, train(loader, model, optimizer))
