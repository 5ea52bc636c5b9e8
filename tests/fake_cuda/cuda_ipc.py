"""CUDA IPC under fake CUDA: cuda tensors sent to torch.multiprocessing
children and back share their memory as on a GPU, so a child's in-place
update is the parent's; where CUDA cannot be used (a forked child of a
process that used it) the receiver fails with torch's own message.

    /usr/bin/python3 cuda_ipc.py --devcheck build/devcheck   # devcheck run --fake-cuda
    /usr/bin/python3 cuda_ipc.py --lib build/src/libdevcheck_fake_device.so
                                  # devcheck_fake_cuda.install, as launch.py does

Each case runs in a process of its own (`--case NAME`) with 2 fake CUDA
devices; the exit status says whether every case held.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_PYTHON = os.path.normpath(os.path.join(HERE, "..", "..", "python"))


def error_of(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 -- the message is what is checked
        return str(e)
    raise AssertionError("no error from %r" % f)


# ---- what the children run (module level: spawn children import this file) -------

def add_one_and_send_back(t, queue, done):
    t.add_(1)  # in place, on the parent's memory
    queue.put(t * 2)  # a tensor of the child's own, on the parent's device
    queue.put(torch_full_on(1))
    done.wait()  # a sender keeps what it sent alive until it is received, as on a GPU


def torch_full_on(index):
    import torch

    return torch.full((3,), 7.0, device=torch.device("cuda", index))


def train(model, steps, seed):
    """Hogwild's worker: SGD steps on the shared parameters."""
    import torch

    torch.manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x = torch.randn(16, 4, device="cuda")
        y = x.sum(1, keepdim=True)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


def receive_in_forked_child(queue, result):
    try:
        queue.get(timeout=60)
        result.put("no error")
    except Exception as e:  # noqa: BLE001
        result.put(str(e))


# ---- the cases ------------------------------------------------------------------------

def queue_round_trip(method, strategy):
    import torch
    import torch.multiprocessing as mp

    mp.set_sharing_strategy(strategy)
    context = mp.get_context(method)
    t = torch.zeros(4, device="cuda:1")
    view = t[1:3]
    allocated = torch.cuda.memory_allocated(1)
    queue, done = context.Queue(), context.Event()
    child = context.Process(target=add_one_and_send_back, args=(t, queue, done))
    child.start()
    doubled, sevens = queue.get(timeout=120), queue.get(timeout=120)
    done.set()
    child.join(120)
    assert child.exitcode == 0, child.exitcode
    # the child's in-place update is the parent's, views included
    assert t.device == torch.device("cuda:1") and t.tolist() == [1.0] * 4, t
    assert view.tolist() == [1.0, 1.0]
    # what the child sent arrives on the device it was on
    assert doubled.device == torch.device("cuda:1") and doubled.tolist() == [2.0] * 4, doubled
    assert sevens.device == torch.device("cuda:1") and sevens.tolist() == [7.0] * 3, sevens
    # the parent's memory is still its own allocation, counted as before
    assert torch.cuda.memory_allocated(1) == allocated, (torch.cuda.memory_allocated(1), allocated)
    # and still a cuda tensor that computes
    assert (t + 1).tolist() == [2.0] * 4


def spawn_file_descriptor():
    queue_round_trip("spawn", "file_descriptor")
    print("spawn file_descriptor ok")


def spawn_file_system():
    queue_round_trip("spawn", "file_system")
    print("spawn file_system ok")


def forkserver_file_descriptor():
    queue_round_trip("forkserver", "file_descriptor")
    print("forkserver file_descriptor ok")


def hogwild():
    """mnist_hogwild with --cuda: a cuda model whose memory is shared
    (share_memory()), trained in place by a spawned child; the parent's
    parameters are what the same training in one process gives, bit for bit."""
    import torch
    import torch.multiprocessing as mp

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).cuda()
    reference = torch.nn.Linear(4, 1).cuda()
    reference.load_state_dict(model.state_dict())
    model.share_memory()
    assert all(p.is_cuda and p.is_shared() for p in model.parameters())
    # shared now, in this thread: sending it later moves nothing
    pointers = [p.data_ptr() for p in model.parameters()]
    before = [p.detach().clone() for p in model.parameters()]
    context = mp.get_context("spawn")
    child = context.Process(target=train, args=(model, 5, 1))
    child.start()
    child.join(300)
    assert child.exitcode == 0, child.exitcode
    assert [p.data_ptr() for p in model.parameters()] == pointers
    train(reference, 5, 1)
    for p, r, b in zip(model.parameters(), reference.parameters(), before):
        assert not torch.equal(p.detach(), b), "the child's updates did not reach the parent"
        assert torch.equal(p.detach(), r.detach()), (p, r)
    print("hogwild ok")


def multiprocessing_spawn():
    """torch.multiprocessing.spawn with a cuda tensor in its arguments."""
    import torch
    import torch.multiprocessing as mp

    shared = torch.zeros(2, 3, device="cuda:0")
    mp.spawn(_fill_row, args=(shared,), nprocs=2, join=True)
    assert shared.tolist() == [[1.0] * 3, [2.0] * 3], shared
    print("multiprocessing spawn ok")


def _fill_row(rank, shared):
    shared[rank].fill_(rank + 1)


def in_one_process():
    """The reduction itself: a round trip through torch's ForkingPickler in
    one process gives a cuda tensor over the same memory; a non-leaf that
    requires grad is refused with torch's own message."""
    from multiprocessing.reduction import ForkingPickler

    import torch

    t = torch.arange(6.0, device="cuda:1").reshape(2, 3)
    back = ForkingPickler.loads(ForkingPickler.dumps(t[:, 1:]))
    assert back.device == torch.device("cuda:1") and back.tolist() == [[1.0, 2.0], [4.0, 5.0]], back
    back.mul_(10)
    assert t.tolist() == [[0.0, 10.0, 20.0], [3.0, 40.0, 50.0]], t
    parameter = torch.nn.Parameter(torch.ones(2, device="cuda"))
    again = ForkingPickler.loads(ForkingPickler.dumps(parameter))
    assert type(again) is torch.nn.Parameter and again.requires_grad and again.is_cuda
    empty = ForkingPickler.loads(ForkingPickler.dumps(torch.empty(0, device="cuda:1")))
    assert empty.device == torch.device("cuda:1") and empty.numel() == 0
    # CPU tensors are torch's own business, as before
    cpu = ForkingPickler.loads(ForkingPickler.dumps(torch.ones(2)))
    assert cpu.device.type == "cpu" and cpu.tolist() == [1.0, 1.0]
    leaf = torch.ones(2, device="cuda", requires_grad=True)
    message = error_of(lambda: ForkingPickler.dumps(leaf * 2))
    assert message.startswith("Cowardly refusing to serialize non-leaf tensor which requires_grad"), message
    print("in one process ok")


def strategy_changed():
    """Memory shared for one strategy is not shared again for another: the
    message names both."""
    from multiprocessing.reduction import ForkingPickler

    import torch
    import torch.multiprocessing as mp

    t = torch.ones(4, device="cuda")
    ForkingPickler.dumps(t)
    mp.set_sharing_strategy("file_system")
    message = error_of(lambda: ForkingPickler.dumps(t))
    assert message.startswith("devcheck fake CUDA: this cuda tensor's memory was shared between processes with "
                              "torch.multiprocessing's 'file_descriptor' sharing strategy; sharing it again "
                              "with 'file_system' is not emulated"), message
    print("strategy changed ok")


def forked_child():
    """A forked child of a process that used CUDA cannot receive a cuda
    tensor: it fails as on a GPU, with torch's message."""
    import torch
    import torch.multiprocessing as mp

    t = torch.ones(2, device="cuda")
    context = mp.get_context("fork")
    queue, result = context.Queue(), context.Queue()
    child = context.Process(target=receive_in_forked_child, args=(queue, result))
    child.start()
    queue.put(t)
    message = result.get(timeout=120)
    child.join(120)
    assert message.startswith("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
                              "you must use the 'spawn' start method"), message
    print("forked child ok")


class _CudaBatches:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        import torch

        return torch.full((2,), float(i), device="cuda")


def dataloader_workers():
    """DataLoader workers (spawn) that return cuda tensors."""
    import torch

    loader = torch.utils.data.DataLoader(_CudaBatches(), batch_size=2, num_workers=2,
                                         multiprocessing_context="spawn")
    batches = list(loader)
    assert all(b.device == torch.device("cuda:0") for b in batches), batches
    assert [b.tolist() for b in batches] == [[[0.0, 0.0], [1.0, 1.0]], [[2.0, 2.0], [3.0, 3.0]]], batches
    print("dataloader workers ok")


CASES = {f.__name__: f for f in (in_one_process, spawn_file_descriptor, spawn_file_system,
                                 forkserver_file_descriptor, hogwild, multiprocessing_spawn, strategy_changed,
                                 forked_child, dataloader_workers)}


def run_case(options, name):
    me = [sys.executable, os.path.abspath(__file__), "--case", name]
    if options.devcheck:
        cmd = [options.devcheck, "run", "--fake-cuda=2", "--"] + me
    else:
        cmd = me + ["--via", "module", "--lib", options.lib]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    ok = out.returncode == 0 and " ok" in out.stdout
    print("%-28s %s" % (name, "ok" if ok else "FAILED"))
    if not ok:
        print(out.stdout + out.stderr)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devcheck", help="the devcheck CLI: each case under devcheck run --fake-cuda=2")
    parser.add_argument("--lib", help="libdevcheck_fake_device.so: each case through devcheck_fake_cuda")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--via", default="env", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    options = parser.parse_args()
    if options.case:
        if options.via == "module":
            sys.path.insert(0, REPO_PYTHON)
            import devcheck_fake_cuda

            devcheck_fake_cuda.install(options.lib, 2)
        CASES[options.case]()
        return 0
    if not (options.devcheck or options.lib):
        parser.error("give --devcheck or --lib")
    names = options.names or list(CASES)
    failed = [name for name in names if not run_case(options, name)]
    print("%d of %d cases held" % (len(names) - len(failed), len(names)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
