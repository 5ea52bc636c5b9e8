"""The CUDA environment under fake CUDA, as the CUDA runtime reads it:
CUDA_VISIBLE_DEVICES chooses which of the machine's fake devices a process
sees (read at its first CUDA call, inherited by the processes it starts), and
CUDA_LAUNCH_BLOCKING and PYTORCH_CUDA_ALLOC_CONF are accepted. Every message
asserted is the one torch gives on a GPU machine in that environment.

    /usr/bin/python3 cuda_environment.py --devcheck build/devcheck   # devcheck run --fake-cuda
    /usr/bin/python3 cuda_environment.py --lib build/src/libdevcheck_fake_device.so
                                          # devcheck_fake_cuda.install, as launch.py does

Each case runs in a process of its own (`--case NAME`) on a machine of 2
fake CUDA devices; the exit status says whether every case held.
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_PYTHON = os.path.normpath(os.path.join(HERE, "..", "..", "python"))

NOT_AVAILABLE = ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If "
                 "you are running on a CPU-only machine, please use torch.load with "
                 "map_location=torch.device('cpu') to map your storages to the CPU.")
NO_GPUS = "No CUDA GPUs are available"


def error_of(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 -- the message is what is checked
        return str(e)
    raise AssertionError("no error from %r" % f)


# ---- the cases, each in a process of its own ------------------------------------------

def save_checkpoints(folder):
    """What the other cases load: a state dict saved on cuda:0 and one on cuda:1."""
    import torch

    torch.save(torch.nn.Linear(3, 2).to("cuda:0").state_dict(), os.path.join(folder, "on_cuda0.pt"))
    torch.save(torch.nn.Linear(3, 2).to("cuda:1").state_dict(), os.path.join(folder, "on_cuda1.pt"))
    print("saved")


def no_devices(folder):
    """CUDA_VISIBLE_DEVICES="" or "-1": a GPU machine whose GPUs are hidden."""
    import torch

    assert not torch.cuda.is_available()
    assert torch.cuda.device_count() == 0
    message = error_of(lambda: torch.load(os.path.join(folder, "on_cuda0.pt")))
    assert message == NOT_AVAILABLE, message
    loaded = torch.load(os.path.join(folder, "on_cuda0.pt"), map_location="cpu")
    assert loaded["weight"].device.type == "cpu"
    for make in (lambda: torch.ones(1, device="cuda"), lambda: torch.ones(1).cuda(), torch.cuda.current_device):
        message = error_of(make)
        assert message.startswith(NO_GPUS), message
    # a program written for CUDA takes its CPU branch
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert (torch.nn.Linear(3, 2).to(device)(torch.ones(1, 3)).device.type) == "cpu"
    print("no devices ok")


def one_device(folder):
    """CUDA_VISIBLE_DEVICES=1: the machine's second device, seen as cuda:0."""
    import torch

    assert torch.cuda.is_available() and torch.cuda.device_count() == 1
    assert torch.ones(2, device="cuda").device == torch.device("cuda:0")
    assert torch.cuda.get_device_properties(0).uuid == "devcheck-fake-cuda-1"
    message = error_of(lambda: torch.ones(1, device="cuda:1"))
    assert message.startswith("CUDA error: invalid device ordinal"), message
    loaded = torch.load(os.path.join(folder, "on_cuda0.pt"))
    assert loaded["weight"].device == torch.device("cuda:0")
    message = error_of(lambda: torch.load(os.path.join(folder, "on_cuda1.pt")))
    assert message.startswith("Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is "
                              "1."), message
    print("one device ok")


def expect_devices(machine_indices):
    """The devices seen are the machine's `machine_indices`, in that order."""
    import torch

    assert torch.cuda.device_count() == len(machine_indices), torch.cuda.device_count()
    assert torch.cuda.is_available() == bool(machine_indices)
    uuids = [torch.cuda.get_device_properties(i).uuid for i in range(len(machine_indices))]
    assert uuids == ["devcheck-fake-cuda-%d" % i for i in machine_indices], uuids


def set_by_the_program(folder):
    """Set after `import torch`, before the first CUDA call: read then, as the
    runtime reads it; changing it after that changes nothing."""
    import torch

    os.environ["CUDA_VISIBLE_DEVICES"] = "1"
    expect_devices([1])
    os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"
    expect_devices([1])
    print("set by the program ok")


CHILD = "import torch; print('child sees', torch.cuda.device_count(), torch.cuda.is_available())"


def inherited_by_children(folder):
    """A process started with its own CUDA_VISIBLE_DEVICES sees that; one
    started without it sees what this one was started with."""
    import multiprocessing

    import torch

    assert torch.cuda.device_count() == 2
    if os.environ.get("DEVCHECK_FAKE_CUDA"):  # devcheck run: every process it starts has fake CUDA
        for value, want in (("", "child sees 0 False"), ("1", "child sees 1 True"), (None, "child sees 2 True")):
            env = dict(os.environ)
            if value is None:
                env.pop("CUDA_VISIBLE_DEVICES", None)
            else:
                env["CUDA_VISIBLE_DEVICES"] = value
            out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                                 text=True, timeout=300)
            assert out.returncode == 0 and want in out.stdout, (value, out.stdout, out.stderr)
    # spawn: a fresh interpreter with the environment of the moment it starts
    context = multiprocessing.get_context("spawn")
    for value, want in (("-1", 0), ("1,0", 2), ("0", 1)):
        os.environ["CUDA_VISIBLE_DEVICES"] = value
        with context.Pool(1) as pool:
            got = pool.apply(_device_count)
        assert got == want, (value, got)
    del os.environ["CUDA_VISIBLE_DEVICES"]
    assert torch.cuda.device_count() == 2  # decided here at the first call
    print("inherited ok")


def _device_count():
    import torch

    return torch.cuda.device_count()


def launch_blocking_and_alloc_conf(folder):
    """CUDA_LAUNCH_BLOCKING=1 and PYTORCH_CUDA_ALLOC_CONF are accepted: a
    training step runs and the memory statistics answer."""
    import torch

    assert os.environ["CUDA_LAUNCH_BLOCKING"] == "1"
    assert os.environ["PYTORCH_CUDA_ALLOC_CONF"]
    model = torch.nn.Linear(8, 2).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss = model(torch.randn(4, 8, device="cuda")).pow(2).mean()
    loss.backward()
    optimizer.step()
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() > 0
    assert torch.cuda.memory_stats()["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
    torch.cuda.empty_cache()
    if hasattr(torch.cuda, "get_allocator_backend"):  # torch 2.x
        assert torch.cuda.get_allocator_backend() == "native"
    print("launch blocking and alloc conf ok")


# case -> (CUDA_VISIBLE_DEVICES, other variables)
CASES = {
    "empty": (no_devices, "", {}),
    "minus_one": (no_devices, "-1", {}),
    "one": (one_device, "1", {}),
    "reordered": (lambda folder: expect_devices([1, 0]) or print("reordered ok"), "1,0", {}),
    "repeated": (lambda folder: expect_devices([]) or print("repeated ok"), "0,0", {}),
    "ends_at_invalid": (lambda folder: expect_devices([0]) or print("ends at invalid ok"), "0,5,1", {}),
    "leading_number": (lambda folder: expect_devices([1]) or print("leading number ok"), "1gpu", {}),
    "set_by_the_program": (set_by_the_program, None, {}),
    "inherited_by_children": (inherited_by_children, None, {}),
    "launch_blocking_and_alloc_conf": (launch_blocking_and_alloc_conf, None, {
        "CUDA_LAUNCH_BLOCKING": "1",
        "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128,garbage_collection_threshold:0.6"}),
}


def case_main(name, folder, via, lib):
    if via == "module":
        sys.path.insert(0, REPO_PYTHON)
        import devcheck_fake_cuda

        devcheck_fake_cuda.start(lib, 2)
    if name == "save":
        save_checkpoints(folder)
    else:
        CASES[name][0](folder)
    return 0


def run_case(options, name, folder, visible, extra):
    env = dict(os.environ)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    env.update(extra)
    me = [sys.executable, os.path.abspath(__file__), "--case", name, "--folder", folder]
    if options.devcheck:
        cmd = [options.devcheck, "run", "--fake-cuda=2", "--"] + me
    else:
        cmd = me + ["--via", "module", "--lib", options.lib]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    ok = out.returncode == 0 and (" ok" in out.stdout or (name == "save" and "saved" in out.stdout))
    print("%-32s %s" % (name, "ok" if ok else "FAILED"))
    if not ok:
        print(out.stdout + out.stderr)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devcheck", help="the devcheck CLI: each case under devcheck run --fake-cuda=2")
    parser.add_argument("--lib", help="libdevcheck_fake_device.so: each case through devcheck_fake_cuda")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--via", default="env", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    options = parser.parse_args()
    if options.case:
        return case_main(options.case, options.folder, options.via, options.lib)
    if not (options.devcheck or options.lib):
        parser.error("give --devcheck or --lib")
    with tempfile.TemporaryDirectory() as folder:
        if not run_case(options, "save", folder, None, {}):
            return 1
        failed = [name for name in (options.names or CASES)
                  if not run_case(options, name, folder, CASES[name][1], CASES[name][2])]
    print("%d of %d cases held" % (len(options.names or CASES) - len(failed), len(options.names or CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
