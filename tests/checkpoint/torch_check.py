"""Checks devcheck's outputs with real PyTorch.

usage:
  torch_check.py compare ORIGINAL REMAPPED [STRIP_PREFIX]
      torch.load(REMAPPED) without map_location must equal
      torch.load(ORIGINAL, map_location="cpu"): bitwise-equal tensors on cpu,
      the same storage sharing, equal non-tensor values. Prints OK.
  torch_check.py dump FILE
      JSON {key: {"dtype", "shape", "hex"}} of every tensor (flattened keys).
  torch_check.py jit ORIGINAL REMAPPED
      Both TorchScript archives load (the remapped one without map_location)
      and give the same output. Prints OK.
"""
import json
import sys

import torch


def raw_bytes(t):
    flat = t.detach().reshape(-1).contiguous()
    if flat.numel() == 0:
        return b""
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return bytes(flat.view(torch.uint8).tolist())


def flatten(obj, prefix, out):
    if isinstance(obj, torch.Tensor):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flatten(v, f"{prefix}.{i}" if prefix else str(i), out)
    return out


def strip(obj, prefix):
    if isinstance(obj, dict) and not isinstance(obj, torch.Tensor):
        items = [(k[len(prefix):] if isinstance(k, str) and k.startswith(prefix) else k,
                  strip(v, prefix)) for k, v in obj.items()]
        out = type(obj)(items) if type(obj) is not dict else dict(items)
        if hasattr(obj, "_metadata"):
            out._metadata = type(obj._metadata)(
                (k[len(prefix):] if k.startswith(prefix) else k, v) for k, v in obj._metadata.items())
        return out
    if isinstance(obj, list):
        return [strip(v, prefix) for v in obj]
    if isinstance(obj, tuple):
        return tuple(strip(v, prefix) for v in obj)
    return obj


def same(a, b, where, storages):
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor), where
        assert b.device.type == "cpu", f"{where}: on {b.device}"
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset(), where
        assert a.requires_grad == b.requires_grad, where
        assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
        assert raw_bytes(a) == raw_bytes(b), f"{where}: bytes differ"
        pa, pb = a.storage().data_ptr(), b.storage().data_ptr()
        assert storages.setdefault(("a", pa), pb) == pb, f"{where}: sharing differs"
        assert storages.setdefault(("b", pb), pa) == pa, f"{where}: sharing differs"
        return
    assert type(a) is type(b), f"{where}: {type(a)} vs {type(b)}"
    if isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), f"{where}: keys {list(a)} vs {list(b)}"
        for k in a:
            same(a[k], b[k], f"{where}.{k}", storages)
        assert getattr(a, "_metadata", None) == getattr(b, "_metadata", None), f"{where}: metadata"
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}.{i}", storages)
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


def main():
    cmd = sys.argv[1]
    if cmd == "compare":
        original = torch.load(sys.argv[2], map_location="cpu")
        remapped = torch.load(sys.argv[3])
        if len(sys.argv) > 4:
            original = strip(original, sys.argv[4])
        same(original, remapped, "root", {})
        print("OK")
    elif cmd == "dump":
        obj = torch.load(sys.argv[2], map_location="cpu")
        print(json.dumps({k: {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
                              "hex": raw_bytes(t).hex()}
                          for k, t in flatten(obj, "", {}).items()}))
    elif cmd == "jit":
        a = torch.jit.load(sys.argv[2], map_location="cpu")
        b = torch.jit.load(sys.argv[3])
        for (ka, ta), (kb, tb) in zip(a.state_dict().items(), b.state_dict().items()):
            assert ka == kb and tb.device.type == "cpu" and torch.equal(ta, tb), ka
        x = torch.ones(1, 2)
        assert torch.equal(a(x), b(x))
        print("OK")


main()
