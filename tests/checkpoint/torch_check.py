"""Checks devcheck's outputs with real PyTorch.

usage:
  torch_check.py compare ORIGINAL REMAPPED [STRIP_PREFIX]
      torch.load(REMAPPED) without map_location must equal
      torch.load(ORIGINAL, map_location="cpu"): bitwise-equal tensors on cpu,
      the same storage sharing, equal non-tensor values. Prints OK.
  torch_check.py dump FILE
      JSON {key: {"dtype", "shape", "hex"}} of every tensor (flattened keys).
  torch_check.py jit ORIGINAL REMAPPED [MAP_LOCATION]
      Both TorchScript archives load (the remapped one with MAP_LOCATION, by
      default without one) and give the same output, and every pickle of
      REMAPPED uses only ops its ORIGINAL used, plus BINUNICODE. Prints OK.
  torch_check.py weights-only FILE [ORIGINAL [STRIP_PREFIX]]
      FILE is what torch.load(weights_only=True) reads in PyTorch 1.13 and
      2.6. Its data.pkl, walked op by op, uses only opcodes 2.6's weights-only
      unpickler accepts and only globals both versions allow (this catches in
      the 1.13 lane what only 2.6 would reject), and no op or global that
      ORIGINAL (the input of a remap) does not use. Then this PyTorch loads it
      with torch.load(FILE, weights_only=True, map_location="cpu") and, given
      ORIGINAL, finds it equal to torch.load(ORIGINAL, map_location="cpu").
      When this PyTorch cannot load ORIGINAL with weights_only=True either
      (1.13 has no BINFLOAT), the load is skipped and said so. Prints OK.
"""
import json
import pickletools
import sys
import zipfile

import torch

# torch/_weights_only_unpickler.py, PyTorch 1.13.1: the opcodes Unpickler.load
# accepts. 2.6's accepts the same and BINFLOAT; POP ("Unsupported operand 48"),
# DUP, MEMOIZE, FRAME, SHORT_BINUNICODE, STACK_GLOBAL, ... are refused by both.
WEIGHTS_ONLY_OPS_1_13 = {
    "PROTO", "STOP", "GLOBAL", "NEWOBJ", "REDUCE", "BUILD", "APPEND", "APPENDS", "SETITEM",
    "SETITEMS", "MARK", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "NONE", "NEWFALSE", "NEWTRUE",
    "EMPTY_TUPLE", "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET", "BININT", "BININT1", "BININT2",
    "BINUNICODE", "SHORT_BINSTRING", "BINPERSID", "BINGET", "LONG_BINGET", "BINPUT",
    "LONG_BINPUT", "LONG1",
}
WEIGHTS_ONLY_OPS_2_6 = WEIGHTS_ONLY_OPS_1_13 | {"BINFLOAT"}

# The globals torch.save's files name that both versions' _get_allowed_globals()
# hold ("torch.FloatStorage": 1.13 the class, 2.6 a StorageType stand-in).
STORAGES = ["Double", "Float", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool",
            "BFloat16", "ComplexDouble", "ComplexFloat", "QUInt8", "QInt8", "QInt32",
            "QUInt4x2"]
WEIGHTS_ONLY_GLOBALS = {
    "collections.OrderedDict", "torch.nn.parameter.Parameter", "torch.Size", "torch.Tensor",
    "torch.serialization._get_layout", "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_sparse_tensor", "torch._utils._rebuild_meta_tensor_no_storage",
} | {f"torch.{name}Storage" for name in STORAGES}


def pickles(path):
    """{record name: bytes} of every pickle in zip `path` torch.load or torch.jit.load reads."""
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist() if n.endswith(".pkl")}


def ops_and_globals(data):
    """The opcode names and GLOBAL names of one pickle, by walking it (nothing is unpickled)."""
    ops, names = set(), set()
    for op, arg, pos in pickletools.genops(data):
        ops.add(op.name)
        if op.name == "GLOBAL":
            names.add(arg.replace(" ", "."))
    return ops, names


def weights_only_problems(data):
    """What 2.6's (opcodes) or either version's (globals) weights-only unpickler refuses."""
    problems = []
    for op, arg, pos in pickletools.genops(data):
        if op.name not in WEIGHTS_ONLY_OPS_2_6:
            problems.append(f"opcode {op.name} ({op.code!r}, {ord(op.code)}) at byte {pos}")
        elif op.name == "GLOBAL" and arg.replace(" ", ".") not in WEIGHTS_ONLY_GLOBALS:
            problems.append(f"global {arg.replace(' ', '.')} at byte {pos}")
    return problems


def data_pkl(path):
    """(name, bytes) of the pickle torch.load unpickles: data.pkl, or a legacy file's main pickle."""
    if not zipfile.is_zipfile(path):
        with open(path, "rb") as f:
            for _ in range(3):  # magic number, protocol, sys_info
                for _ in pickletools.genops(f):
                    pass
            begin = f.tell()
            for _ in pickletools.genops(f):
                pass
            end = f.tell()
            f.seek(begin)
            return "the legacy main pickle", f.read(end - begin)
    found = [(n, d) for n, d in pickles(path).items() if n.endswith("/data.pkl") or n == "data.pkl"]
    assert len(found) == 1, f"{path}: expected one data.pkl, found {[n for n, _ in found]}"
    return found[0]


def weights_only(path, original=None, prefix=None):
    name, data = data_pkl(path)
    problems = weights_only_problems(data)
    if original is not None:
        ops, names = ops_and_globals(data)
        before_ops, before_names = ops_and_globals(data_pkl(original)[1])
        added = sorted((ops - before_ops - {"BINUNICODE"}) | (names - before_names))
        assert not added, f"{path}: {name} uses {added}, which {original} does not"
        # Only what the input already had may be refused.
        allowed = {p.split(" at byte")[0] for p in weights_only_problems(data_pkl(original)[1])}
        problems = [p for p in problems if p.split(" at byte")[0] not in allowed]
    assert not problems, f"{path}: {name} is refused by torch.load(weights_only=True): " + \
        "; ".join(problems[:10])
    try:
        loaded = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as e:
        if original is None:
            raise
        try:
            torch.load(original, weights_only=True, map_location="cpu")
        except Exception as e0:
            first = str(e0).split("WeightsUnpickler error: ")[-1].strip()[:200]
            print(f"SKIP load: torch {torch.__version__} cannot load the original "
                  f"{original} with weights_only=True either ({first})")
            print("OK")
            return
        raise AssertionError(f"{path}: torch.load(weights_only=True) failed: {e}") from e
    if original is not None:
        expected = torch.load(original, map_location="cpu", weights_only=False)
        if prefix:
            expected = strip(expected, prefix)
        same(expected, loaded, "root", {})
    print("OK")


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
        before, after = pickles(sys.argv[2]), pickles(sys.argv[3])
        for name, data in after.items():
            ops, names = ops_and_globals(data)
            old_ops, old_names = ops_and_globals(before[name])
            added = sorted((ops - old_ops - {"BINUNICODE"}) | (names - old_names))
            assert not added, f"{sys.argv[3]}: {name} uses {added}, which {sys.argv[2]} does not"
        a = torch.jit.load(sys.argv[2], map_location="cpu")
        b = torch.jit.load(sys.argv[3], map_location=sys.argv[4] if len(sys.argv) > 4 else None)
        for (ka, ta), (kb, tb) in zip(a.state_dict().items(), b.state_dict().items()):
            assert ka == kb and tb.device.type == "cpu" and torch.equal(ta, tb), ka
        x = torch.ones(1, 2)
        assert torch.equal(a(x), b(x))
        print("OK")
    elif cmd == "weights-only":
        weights_only(*sys.argv[2:5])


if __name__ == "__main__":
    main()
