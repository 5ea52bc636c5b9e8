# devcheck bug corpus: DC118
# From: https://github.com/stepfun-ai/SteptronOss/pull/38
# Steptron packs a dict of tensors into one uint8 tensor on the communication
# device (CUDA) for collectives; unpacking a CPU-bound entry copies its bytes
# from CUDA to the CPU with non_blocking=True and immediately consumes that
# CPU buffer with copy_() into the reconstructed tensor, without
# synchronizing: the bytes read may not have landed yet.
# Written for devcheck's tests after the thread; not the project's code.
import pickle

import numpy as np
import torch
import torch.distributed as dist


def dict_to_tensor(obj, comm_device):
    meta, parts = [], []
    for key, t in obj.items():
        device_str = "cpu" if t.device.type == "cpu" else "cuda"
        meta.append((key, t.dtype, list(t.shape), device_str))
        parts.append(t.contiguous().view(torch.uint8).flatten().to(comm_device, non_blocking=True))
    meta_bytes = torch.frombuffer(bytearray(pickle.dumps(meta)), dtype=torch.uint8).to(comm_device)
    header = torch.tensor([meta_bytes.numel()], dtype=torch.int64).view(torch.uint8).to(comm_device)
    return torch.cat([header, meta_bytes] + parts)


def tensor_to_dict(flat, keep_on_comm_device=False):
    comm_device = flat.device
    meta_len = int(np.frombuffer(flat[:8].cpu().numpy().tobytes(), dtype=np.int64)[0])
    meta = pickle.loads(flat[8:8 + meta_len].cpu().numpy().tobytes())
    offset = 8 + meta_len
    out = {}
    for key, dtype, shape, device_str in meta:
        target_device = comm_device if keep_on_comm_device else torch.device(device_str)
        result = torch.empty(shape, dtype=dtype, device=target_device)
        nbytes = result.numel() * result.element_size()
        if nbytes > 0:
            target_view = result.view(torch.uint8).view(-1)
            source = flat[offset:offset + nbytes].to(target_device, non_blocking=True)  # <- bug
            target_view.copy_(source[: target_view.numel()])  # <- bug
        out[key] = result
        offset += nbytes
    return out


def all_gather_dict(obj, group=None, device=None):
    comm_device = device or torch.device("cuda", torch.cuda.current_device())
    packed = dict_to_tensor(obj, comm_device)
    sizes = [torch.empty(1, dtype=torch.int64, device=comm_device) for _ in range(dist.get_world_size(group))]
    dist.all_gather(sizes, torch.tensor([packed.numel()], device=comm_device), group=group)
    max_size = max(int(s.item()) for s in sizes)
    packed = torch.cat([packed, packed.new_empty(max_size - packed.numel())])
    recv = [torch.empty(max_size, dtype=torch.uint8, device=comm_device) for _ in sizes]
    dist.all_gather(recv, packed, group=group)
    return [tensor_to_dict(r[: int(s.item())]) for r, s in zip(recv, sizes)]


if __name__ == "__main__":
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank() % torch.cuda.device_count())
    state = {"step": torch.tensor([dist.get_rank()]), "weights": torch.randn(1024, device="cuda")}
    gathered = all_gather_dict(state)
    print([g["step"].item() for g in gathered])
