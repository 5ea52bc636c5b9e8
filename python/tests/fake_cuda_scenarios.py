"""Fake CUDA, scenario by scenario: each runs in a process of its own (fake
CUDA cannot be turned off again) and checks itself with asserts; the exit
status says whether it held. Two suites run them:
  python/tests/test_fake_cuda.py        through the pip-built package
                                        (devcheck.fake_cuda(), python -m devcheck run)
  tests/sanitizer/run_fake_cuda_test.cc through Debian's torch, devcheck run
                                        --fake-cuda and the preload library

    python fake_cuda_scenarios.py SCENARIO [--via package|module|env] [--lib PATH]

--via package: devcheck.fake_cuda(); module: devcheck_fake_cuda.install(PATH);
env: fake CUDA is already on (devcheck run --fake-cuda). Every expected
message is the one the CUDA build of the running torch version produces.
"""

import io
import os
import sys
import tempfile
import time
import zipfile

import torch

TORCH2 = int(torch.__version__.split(".")[0]) >= 2
SAME = "Expected all tensors to be on the same device, but found at least two devices, "


def wrapper(name):
    """The name CUDA's generated device check gives its wrapper for `name`."""
    return ("wrapper_CUDA_" if TORCH2 else "wrapper_") + name


INVALID_ORDINAL = ("CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at "
                   "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
                   "passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
                   "assertions.\n") if TORCH2 else (
                   "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at "
                   "some other API call,so the stacktrace below might be incorrect.\nFor debugging consider "
                   "passing CUDA_LAUNCH_BLOCKING=1.")


def error_of(f, kind=Exception):
    try:
        f()
    except kind as e:
        return str(e)
    raise AssertionError("no error from %r" % f)


def turn_on(via, lib, count=2):
    if via == "package":
        import devcheck

        return devcheck.fake_cuda(count)
    if via == "module":
        import devcheck_fake_cuda

        return devcheck_fake_cuda.install(lib, count)
    # env: fake CUDA is on already (devcheck run --fake-cuda); real: a GPU
    # machine's own CUDA, to hold the expectations against (scripts/gpu/fake_cuda.sh)
    assert torch.cuda.is_available(), "CUDA should be there already (devcheck run --fake-cuda, or a GPU)"
    return [torch.device("cuda", i) for i in range(torch.cuda.device_count())]


# ---- the scenarios ----------------------------------------------------------------

def surface():
    """The torch.cuda a training program touches."""
    c = torch.cuda
    assert c.is_available() and c.device_count() == 2 and c.is_initialized() in (True, False)
    assert c.current_device() == 0
    c.set_device(1)
    assert c.current_device() == 1 and torch.ones(1, device="cuda").device == torch.device("cuda:1")
    c.set_device(0)
    with c.device(1):
        assert c.current_device() == 1
        assert torch.zeros(2, device="cuda").device.index == 1
    assert c.current_device() == 0
    assert "fake CUDA" in c.get_device_name(0) and c.get_device_name() == c.get_device_name(1)
    props = c.get_device_properties(0)
    assert (props.major, props.minor) == (8, 0) and props.total_memory > 2**30
    assert c.get_device_capability() == (8, 0)
    assert c.is_bf16_supported()
    c.synchronize()
    c.synchronize(1)
    s = c.Stream()
    assert s.device == torch.device("cuda:0") and s.query()
    assert c.current_stream() == c.default_stream() and c.current_stream().cuda_stream == 0
    with c.stream(s):
        assert c.current_stream() == s
        y = torch.ones(3, device="cuda") * 2
    assert c.current_stream() == c.default_stream()
    s.wait_stream(c.current_stream())
    start, end = c.Event(enable_timing=True), c.Event(enable_timing=True)
    start.record()
    y = y @ y
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0.0
    assert "Both events must be created" in error_of(lambda: c.Event().elapsed_time(c.Event()))
    c.reset_peak_memory_stats()
    base = c.memory_allocated()
    x = torch.empty(1024, device="cuda")  # 4 KiB
    assert c.memory_allocated() == base + 4096, (c.memory_allocated(), base)
    assert c.max_memory_allocated() >= base + 4096 and c.memory_reserved() >= c.memory_allocated()
    del x
    assert c.memory_allocated() == base and c.max_memory_allocated() >= base + 4096
    c.reset_peak_memory_stats()
    assert c.max_memory_allocated() == base
    stats = c.memory_stats()
    assert stats["allocated_bytes.all.current"] == base and stats["num_ooms"] == 0
    assert "PyTorch CUDA memory summary" in c.memory_summary()
    # freed blocks stay reserved, as with CUDA's caching allocator, until empty_cache()
    c.empty_cache()
    assert c.memory_reserved() == c.memory_allocated() == base, (c.memory_reserved(), base)
    big = torch.empty(1 << 18, device="cuda")  # 1 MiB
    address = big.data_ptr()
    del big
    assert c.memory_allocated() == base and c.memory_reserved() == base + (1 << 20)
    assert c.max_memory_reserved() >= base + (1 << 20)
    assert c.memory_stats()["segment.all.current"] >= 1
    assert torch.empty(1 << 18, device="cuda").data_ptr() == address  # reused
    cached_free, total = c.mem_get_info()  # a cached block is not free, as on a GPU
    c.empty_cache()
    assert c.mem_get_info() == (cached_free + (1 << 20), total), (c.mem_get_info(), cached_free)
    assert c.memory_reserved() == base, (c.memory_reserved(), base)
    free, total = c.mem_get_info()
    assert 0 < free <= total
    c.manual_seed_all(3)
    a = torch.randn(4, device="cuda")
    b = torch.randn(4, device="cuda:1")
    c.manual_seed_all(3)
    assert torch.equal(a, torch.randn(4, device="cuda")) and torch.equal(b, torch.randn(4, device="cuda:1"))
    c.manual_seed(5)
    state = c.get_rng_state()
    first = torch.rand(3, device="cuda")
    c.set_rng_state(state)
    assert torch.equal(first, torch.rand(3, device="cuda"))
    assert len(c.get_rng_state_all()) == 2
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    assert torch.backends.cudnn.benchmark and torch.backends.cudnn.deterministic
    assert c.get_sync_debug_mode() == 0
    print("surface ok")


def tensors():
    """cuda:N tensors that compute as the CPU does, bit for bit."""
    x = torch.arange(6.0).reshape(2, 3)
    g = x.cuda()
    assert g.is_cuda and g.device == torch.device("cuda:0") and g.get_device() == 0
    assert repr(g).endswith("device='cuda:0')") and "device='cuda:1'" in repr(g.to("cuda:1"))
    assert torch.device("cuda").type == "cuda" and torch.zeros(1, device="cuda").device.index == 0
    assert torch.equal(torch.full((2,), 7.0, device="cuda:1").cpu(), torch.full((2,), 7.0))
    torch.manual_seed(0)
    w = torch.randn(3, 4)
    m = torch.nn.Linear(3, 4)
    cpu_out = torch.nn.functional.gelu(x @ w + 1).softmax(-1).sum(0)
    cuda_out = torch.nn.functional.gelu(g @ w.cuda() + 1).softmax(-1).sum(0)
    assert torch.equal(cpu_out, cuda_out.cpu())
    before = m.weight
    m.cuda()
    assert m.weight is before and m.weight.device.type == "cuda"
    out = m(g).sum()
    out.backward()
    assert m.weight.grad.device == torch.device("cuda:0")
    h = x.to("cuda:1", non_blocking=True)
    assert h.device.index == 1 and torch.equal(h.cpu(), x)
    assert torch.equal(g.to("cuda:1").to("cuda:0").cpu(), x)
    assert g.new_ones(2).device == g.device and torch.zeros_like(g).device == g.device
    assert torch.tensor([1, 2], device="cuda").device.type == "cuda"
    assert torch.cuda.FloatTensor is not None
    print("tensors ok")


def training_equals_cpu():
    """A small training loop: losses and weights equal the CPU run's bitwise."""
    def run(device):
        torch.manual_seed(7)
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                    torch.nn.Linear(4 * 6 * 6, 10)).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        gen = torch.Generator().manual_seed(1)
        losses = []
        for _ in range(4):
            x = torch.randn(8, 1, 8, 8, generator=gen).to(device)
            y = torch.randint(0, 10, (8,), generator=gen).to(device)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu() for p in model.parameters()]

    cpu_losses, cpu_params = run("cpu")
    cuda_losses, cuda_params = run("cuda")
    assert cpu_losses == cuda_losses, (cpu_losses, cuda_losses)
    assert all(torch.equal(a, b) for a, b in zip(cpu_params, cuda_params))
    print("training ok", cuda_losses)


def mismatch_messages():
    """The GPU's own words for mixed devices, and what CUDA allows."""
    g = torch.ones(3, device="cuda")
    assert error_of(lambda: g + torch.ones(3)) == SAME + "cuda:0 and cpu!"
    assert error_of(lambda: torch.ones(3) + g) == SAME + "cuda:0 and cpu!"
    if torch.cuda.device_count() > 1:
        assert error_of(lambda: g * torch.ones(3, device="cuda:1")) == SAME + "cuda:0 and cuda:1!"
    m = torch.ones(2, 2, device="cuda")
    assert error_of(lambda: torch.mm(m, torch.ones(2, 2))) == (
        SAME + "cuda:0 and cpu! (when checking argument for argument mat2 in method %s)" % wrapper("mm"))
    emb = torch.nn.Embedding(10, 3).cuda()
    assert error_of(lambda: emb(torch.tensor([1, 2]))) == (
        SAME + "cuda:0 and cpu! (when checking argument for argument index in method %s)"
        % wrapper("_index_select"))
    # what CUDA allows: CPU 0-dim tensors and CPU indices
    assert torch.equal((g * torch.tensor(2.0)).cpu(), torch.full((3,), 2.0))
    v = torch.arange(5.0, device="cuda")
    assert torch.equal(v[torch.tensor([4, 0])].cpu(), torch.tensor([4.0, 0.0]))
    assert error_of(lambda: g.numpy(), TypeError) == (
        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
        "first.")
    beyond = torch.cuda.device_count()
    for f in (lambda: torch.ones(1, device="cuda:%d" % (beyond + 3)), lambda: torch.cuda.set_device(beyond + 3),
              lambda: torch.ones(1).to("cuda:%d" % beyond)):
        assert error_of(f) == INVALID_ORDINAL, repr(error_of(f))
    # CUDA kernels that check in words of their own
    x = torch.randn(3, 4, device="cuda")
    assert error_of(lambda: x.masked_fill(torch.ones(3, 4, dtype=torch.bool), 0.0)) == (
        "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0")
    assert error_of(lambda: torch.arange(5.0)[torch.tensor([1, 2], device="cuda")]) == (
        "indices should be either on cpu or on the same device as the indexed tensor (cpu)")
    assert error_of(lambda: torch.addcmul(x, torch.tensor(1.0), torch.tensor(2.0))) == (
        "Trying to pass too many CPU scalars to non-CPU kernel!")
    where = lambda: torch.where(x > 0, x, torch.tensor(0.0))  # noqa: E731
    if TORCH2:  # 2.x moves 0-dim operands to the device
        assert where().device == x.device
    else:
        assert error_of(where) == SAME + "cuda:0 and cpu!"
    conv = torch.nn.Conv2d(1, 2, 3)
    assert error_of(lambda: conv(torch.randn(1, 1, 5, 5, device="cuda"))) == (
        "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same")
    assert error_of(lambda: torch.nn.Conv2d(1, 2, 3).cuda()(torch.randn(1, 1, 5, 5))) == (
        "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input "
        "should be a MKLDNN tensor and weight is a dense tensor")
    lstm = torch.nn.LSTM(3, 4).cuda()
    h0 = (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
    assert error_of(lambda: lstm(torch.randn(5, 1, 3, device="cuda"), h0)) == (
        "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu")
    print("messages ok")


def rnn_and_conv():
    """LSTM and GRU on their CUDA paths (fused cells), convolutions."""
    torch.manual_seed(0)
    for cls in (torch.nn.LSTM, torch.nn.GRU):
        cpu = cls(4, 5, num_layers=2)
        cuda = cls(4, 5, num_layers=2)
        cuda.load_state_dict(cpu.state_dict())
        cuda.cuda()
        x = torch.randn(6, 3, 4)
        out_cpu, _ = cpu(x)
        out_cuda, _ = cuda(x.cuda())
        assert out_cuda.device.type == "cuda"
        assert torch.allclose(out_cpu, out_cuda.cpu(), atol=1e-6), (out_cpu - out_cuda.cpu()).abs().max()
        out_cpu.sum().backward()
        out_cuda.sum().backward()
        for a, b in zip(cpu.parameters(), cuda.parameters()):
            assert torch.allclose(a.grad, b.grad.cpu(), atol=1e-5)
    conv = torch.nn.Conv2d(2, 3, 3, padding=1)
    x = torch.randn(2, 2, 5, 5)
    want = conv(x)
    conv_cuda = torch.nn.Conv2d(2, 3, 3, padding=1)
    conv_cuda.load_state_dict(conv.state_dict())
    conv_cuda.cuda()
    got = conv_cuda(x.cuda())
    assert torch.equal(want, got.cpu())
    depthwise = torch.nn.Conv2d(4, 4, 3, groups=4).cuda()
    assert depthwise(torch.randn(1, 4, 6, 6, device="cuda")).shape == (1, 4, 4, 4)
    print("rnn and conv ok")


def amp():
    """autocast("cuda") in float16 and bfloat16, and GradScaler."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    x = torch.randn(4, 8, device="cuda")
    y = torch.randint(0, 3, (4,), device="cuda")
    for _ in range(3):
        opt.zero_grad()
        with torch.autocast("cuda"):
            out = model(x)
            assert out.dtype == torch.float16
            loss = torch.nn.functional.cross_entropy(out, y)
            assert loss.dtype == torch.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 65536.0
    # an inf in the gradients: the step is skipped and the scale backs off
    opt.zero_grad()
    with torch.cuda.amp.autocast():
        loss = model(x).float().sum() * float("inf")
    scaler.scale(loss).backward()
    weight = model[0].weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 32768.0 and torch.equal(weight, model[0].weight.detach())
    with torch.autocast("cuda", dtype=torch.bfloat16):
        assert model(x).dtype == torch.bfloat16
    print("amp ok")


def pinned_memory():
    t = torch.ones(4)
    p = t.pin_memory()
    assert p.is_pinned() and not t.is_pinned() and p.device.type == "cpu"
    assert torch.equal(p.to("cuda", non_blocking=True).cpu(), t)
    data = torch.utils.data.TensorDataset(torch.arange(8.0).reshape(8, 1))
    for workers in (0, 2):
        loader = torch.utils.data.DataLoader(data, batch_size=4, pin_memory=True, num_workers=workers)
        for (batch,) in loader:
            assert batch.is_pinned(), workers
            assert batch.cuda(non_blocking=True).device.type == "cuda"
    print("pinned ok")


def save_and_load():
    """torch.save of cuda tensors writes files tagged cuda:N; torch.load
    puts them back there, or where map_location says."""
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "model.pt")
    model = torch.nn.Linear(3, 2).to("cuda:1")
    torch.save(model.state_dict(), path)
    with zipfile.ZipFile(path) as z:
        pickle = next(n for n in z.namelist() if n.endswith("data.pkl"))
        assert b"cuda:1" in z.read(pickle)
    loaded = torch.load(path)
    assert all(v.device == torch.device("cuda:1") for v in loaded.values())
    assert torch.equal(loaded["weight"].cpu(), model.weight.detach().cpu())
    assert all(v.device.type == "cpu" for v in torch.load(path, map_location="cpu").values())
    assert all(v.device == torch.device("cuda:0") for v in torch.load(path, map_location="cuda:0").values())
    buffer = io.BytesIO()
    torch.save(torch.arange(3, device="cuda"), buffer)
    buffer.seek(0)
    assert torch.load(buffer).device == torch.device("cuda:0")
    print("save and load ok", path)


def load_beyond_count():
    """A file saved on cuda:1 in a process with one fake device, without map_location."""
    buffer = io.BytesIO()
    t = torch.ones(2, device="cuda:0")
    torch.save(t, buffer)
    raw = buffer.getvalue().replace(b"cuda:0", b"cuda:1")
    message = error_of(lambda: torch.load(io.BytesIO(raw)))
    assert message.startswith("Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() "
                              "is 1."), message
    print("load beyond count ok")


def data_parallel():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    reference = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    reference.load_state_dict(model.state_dict())
    parallel = torch.nn.DataParallel(model)
    x = torch.randn(10, 6)
    message = error_of(lambda: parallel(x.cuda()))
    assert message == ("module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one "
                       "of them on device: cpu"), message
    parallel = torch.nn.DataParallel(model.cuda())
    out = parallel(x.cuda())
    assert out.device == torch.device("cuda:0") and out.shape == (10, 2)
    assert torch.equal(out.cpu(), reference(x))
    out.sum().backward()
    reference(x).sum().backward()
    for a, b in zip(model.parameters(), reference.parameters()):
        assert a.grad.device == torch.device("cuda:0")
        assert torch.allclose(a.grad.cpu(), b.grad, atol=1e-6)
    print("data parallel ok")


class _CudaInWorker(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i)).cuda()


def forked_worker():
    """CUDA in a DataLoader worker forked after the parent used CUDA: the
    worker fails as on a GPU, and the loader says so; never a hang."""
    torch.ones(1, device="cuda")
    loader = torch.utils.data.DataLoader(_CudaInWorker(), batch_size=2, num_workers=1,
                                         multiprocessing_context="fork")
    start = time.time()
    message = error_of(lambda: next(iter(loader)))
    assert time.time() - start < 60
    assert "Caught RuntimeError in DataLoader worker process 0" in message, message
    assert ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
            "'spawn' start method") in message, message
    print("forked worker ok")


class _CudaWorkInWorker(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 2, "no fake CUDA in the worker"
        return (torch.full((2,), float(i), device="cuda") * 2).cpu()


def fresh_workers():
    """spawn and forkserver workers (forkserver: Python 3.14's default) start
    a fresh interpreter: they see fake CUDA's devices, as a GPU's, and use
    them, even after the parent used CUDA; never a hang."""
    torch.ones(1, device="cuda")
    for method in ("spawn", "forkserver"):
        loader = torch.utils.data.DataLoader(_CudaWorkInWorker(), batch_size=2, num_workers=2,
                                             multiprocessing_context=method)
        start = time.time()
        batches = [b.tolist() for b in loader]
        assert time.time() - start < 120, method
        assert batches == [[[0.0, 0.0], [2.0, 2.0]], [[4.0, 4.0], [6.0, 6.0]]], (method, batches)
    print("fresh workers ok")


def distributed():
    """DDP over cuda tensors is not emulated: it says so by name."""
    import torch.distributed as dist

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("USE_LIBUV", "0")  # Debian 13's torch 2.6 is built without libuv
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    dist.init_process_group("gloo", rank=0, world_size=1)
    try:
        model = torch.nn.Linear(2, 2).cuda()
        message = error_of(lambda: torch.nn.parallel.DistributedDataParallel(model, device_ids=[0]))
        assert "devcheck fake CUDA" in message and "DistributedDataParallel" in message, message
        t = torch.ones(2, device="cuda")
        message = error_of(lambda: dist.all_reduce(t))
        assert "devcheck fake CUDA" in message and "all_reduce" in message, message
    finally:
        dist.destroy_process_group()
    print("distributed ok")


def bad_count():
    """A second call with another count is refused, naming both."""
    import devcheck_fake_cuda

    message = error_of(lambda: devcheck_fake_cuda.install(None, 3))
    assert "fake_cuda(3)" in message and "already has 2 fake CUDA devices" in message, message
    print("bad count ok")


SCENARIOS = {f.__name__: f for f in (surface, tensors, training_equals_cpu, mismatch_messages, rnn_and_conv, amp,
                                     pinned_memory, save_and_load, data_parallel, forked_worker, fresh_workers,
                                     distributed,
                                     bad_count)}
ONE_DEVICE = {"load_beyond_count": load_beyond_count}


def main(argv):
    name = argv[1]
    via = argv[argv.index("--via") + 1] if "--via" in argv else "env"  # package, module, env, real
    lib = argv[argv.index("--lib") + 1] if "--lib" in argv else None
    if name in ONE_DEVICE:
        turn_on(via, lib, 1)
        ONE_DEVICE[name]()
    else:
        turn_on(via, lib, 2)
        SCENARIOS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
