"""Makes the checkpoint fixtures with real PyTorch (Debian's python3-torch).

usage: make_fixtures.py OUT_DIR

Every file is written by torch.save / torch.jit.save itself, except the
deliberately broken ones, which start from a real torch.save file.
"""
import collections
import io
import os
import sys
import zipfile

import torch

OUT = sys.argv[1]
MARKER = os.path.join(OUT, "pwned-marker")
torch.manual_seed(0)


def path(name):
    return os.path.join(OUT, name)


class tagged:
    """torch.save writes `location` for every storage (or those in `only`) while active."""

    def __init__(self, location, only=None):
        self.location = location
        self.only = only

    def __enter__(self):
        def tagger(storage):
            if self.only is None or storage.data_ptr() in self.only:
                return self.location
            return None

        self.elem = (-100, tagger, lambda obj, location: None)
        torch.serialization._package_registry.append(self.elem)
        torch.serialization._package_registry.sort(key=lambda e: e[0])
        return self

    def __exit__(self, *exc):
        torch.serialization._package_registry.remove(self.elem)


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))


# CPU state dict of an MLP (what a LibTorch Sequential of the same layers has).
model = mlp()
model(torch.randn(5, 4))  # BatchNorm running stats move
torch.save(model.state_dict(), path("cpu_state_dict.pt"))

# Saved "on cuda:1" without a GPU; a user value shares the location string.
CUDA1 = "cuda:1"
with tagged(CUDA1):
    torch.save({"model": model.state_dict(), "config": {"device": CUDA1, "lr": 0.5}},
               path("cuda1.pt"))
    torch.save(model.state_dict(), path("cuda1_state_dict.pt"))
    # The same sharing without a float (1.13's weights-only unpickler has no BINFLOAT).
    torch.save({"model": model.state_dict(), "config": {"device": CUDA1, "steps": 3}},
               path("cuda1_config.pt"))

# CPU storages, with a user value that is the very "cpu" string the tagger returns.
torch.save({"w": torch.arange(6.0), "config": {"device": "cpu", "name": "net"}},
           path("cpu_config.pt"))

# Mixed: one tensor on cuda:0, the rest on cpu.
a, b = torch.ones(3), torch.zeros(2)
with tagged("cuda:0", only={a.data_ptr()}):
    torch.save({"a": a, "b": b}, path("mixed.pt"))

# DataParallel / DDP keys.
torch.save(torch.nn.DataParallel(mlp()).state_dict(), path("dataparallel.pt"))

# Optimizer state (Adam after one step) inside a training checkpoint.
net = mlp()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
net(torch.randn(5, 4)).sum().backward()
opt.step()
torch.save({"epoch": 3, "model": net.state_dict(), "optimizer": opt.state_dict(),
            "history": [0.5, 0.25], "best": None, "tags": ("a", 1, True)},
           path("optimizer.pt"))


# Views and tied weights.
class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(5, 3)
        self.out = torch.nn.Linear(3, 5, bias=False)
        self.out.weight = self.emb.weight


base = torch.arange(12.0)
torch.save({"base": base, "slice": base[2:5], "t": base.view(3, 4).t(), "strided": base[::3],
            "tied": Tied().state_dict(), "param": torch.nn.Parameter(torch.ones(2, 2))},
           path("views.pt"))

# A storage above 2 MiB (load_tensors gives it its own huge-page mapping) with
# views into it, in the zip and the legacy format.
large = torch.arange(786437, dtype=torch.float32)  # 3 MiB + 20 B
large_state = {"big": large, "tail": large[786432:], "grid": large[1000:2000].view(10, 100)}
torch.save(large_state, path("large.pt"))
torch.save(large_state, path("large_legacy.pt"), _use_new_zipfile_serialization=False)
with tagged(CUDA1):
    torch.save(large_state, path("large_cuda1.pt"))

# Every dtype, 0-dim and empty tensors.
dtypes = {}
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64,
           torch.complex128, torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
           torch.int64]:
    name = str(dt).replace("torch.", "")
    dtypes[name] = (torch.arange(6, dtype=torch.float64) - 2).to(dt).reshape(2, 3)
dtypes["scalar"] = torch.tensor(3.5)
dtypes["empty"] = torch.empty(0, 4)
dtypes["int_scalar"] = torch.tensor(7)
torch.save(dtypes, path("dtypes.pt"))

# Legacy (pre-1.6) format.
legacy_base = torch.arange(6.0)
torch.save({"w": legacy_base, "v": legacy_base[2:4], "n": 7, "config": {"device": "cpu"}},
           path("legacy.pt"), _use_new_zipfile_serialization=False)
with tagged(CUDA1):
    torch.save(model.state_dict(), path("legacy_cuda1.pt"), _use_new_zipfile_serialization=False)


# TorchScript, scripted (a device literal in code/) and traced.
class Scripted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x) + torch.zeros(2, device=torch.device("cuda:0")).cpu()


class Traced(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        self.register_buffer("c", torch.ones(2))

    def forward(self, x):
        return self.fc(x) + self.c + torch.tensor([1.0, 2.0])


torch.jit.script(Scripted()).save(path("scripted.pt"))
torch.jit.trace(Traced(), torch.ones(1, 2)).save(path("traced.pt"))


# Malicious pickles: loading them with pickle would create the marker file.
class SystemCall:
    def __reduce__(self):
        return (os.system, ("touch " + MARKER,))


class EvalCall:
    def __reduce__(self):
        return (eval, ("open(%r, 'w').write('x')" % MARKER,))


torch.save({"w": torch.ones(2), "payload": SystemCall()}, path("evil_system.pt"))
torch.save({"w": torch.ones(2), "payload": EvalCall()}, path("evil_eval.pt"))
torch.save({"payload": SystemCall()}, path("evil_legacy.pt"), _use_new_zipfile_serialization=False)


def rewrite_zip(src, dst, change):
    """Copies zip `src` to `dst`, passing each (name, bytes) through change()."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


# A storage record shorter than numel * element size (CVE-2026-24747).
torch.save({"w": torch.arange(8.0)}, path("_base.pt"))
rewrite_zip(path("_base.pt"), path("short_record.pt"),
            lambda n, d: d[:8] if n.endswith("data/0") else d)
# A view past the end of its storage: size 4 -> 64.
rewrite_zip(path("_base.pt"), path("view_oob.pt"),
            lambda n, d: d.replace(b"K\x00K\x08\x85", b"K\x00K\x40\x85") if n.endswith("data.pkl") else d)
# A record name that escapes the archive.
with zipfile.ZipFile(path("escape.pt"), "w") as z:
    z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    z.writestr("../../etc/evil", b"x")
os.remove(path("_base.pt"))

# Broken files.
whole = open(path("cpu_state_dict.pt"), "rb").read()
open(path("truncated.pt"), "wb").write(whole[: len(whole) // 2])
open(path("empty.pt"), "wb").close()
open(path("not_a_checkpoint.pt"), "w").write("hello, this is a text file\n" * 4)
print("fixtures written to", OUT)
