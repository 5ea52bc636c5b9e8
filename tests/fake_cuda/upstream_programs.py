"""More programs nobody here wrote, run unmodified under fake CUDA and on the
plain CPU (real_programs.py's runner and checks; docs/fake-cuda-programs.md
has the table of all of them):

    /usr/bin/python3 upstream_programs.py --devcheck build/devcheck [--json out.json] [names...]

Sources (scripts/fetch-lint-corpus.sh and scripts/fetch-program-corpus.sh fetch
them from Debian 12's registry; the programs run from where they live):

  torchvision 0.14.1 (pytorch-vision source), references/:
    vision-detection[-amp]  detection/engine.py's train_one_epoch (LinearLR warm-up
                            in epoch 0; --amp: autocast + GradScaler) with utils.py's
                            collate_fn, MetricLogger, reduce_dict and
                            group_by_aspect_ratio.py's GroupedBatchSampler
    vision-video            video_classification/train.py: train_one_epoch (warm-up
                            + MultiStepLR as main() chains them) and evaluate (clip and
                            video accuracy, softmax aggregated per video)
    vision-optical-flow     optical_flow/train.py: train_one_epoch (utils.sequence_loss,
                            compute_metrics, clip_grad_norm_, OneCycleLR) and _evaluate
                            (utils.InputPadder, pin_memory DataLoader)
  PyTorch 1.13.1 (pytorch source, Debian's +dfsg tarball):
    functorch-ensembling    functorch/examples/ensembling/parallel_train.py, the whole
                            script with --device cuda (grad_and_value, vmap over models)
    functorch-maml-ptonly   functorch/examples/maml_omniglot/maml-omniglot-ptonly.py:
    functorch-maml-transforms  ...-transforms.py: their train and test on a tiny
                            synthetic Omniglot (the loader downloads the real one)
    fastrnns-test           benchmarks/fastrnns/test.py: test_rnns (TorchScript LSTMs
                            against nn.LSTM, outputs and gradients) for jit, jit_premul
    autograd-ppl            benchmarks/functional_autograd_benchmark: every task of
                            torch.autograd.functional and functorch (consistency checked
                            by the script) on ppl_models' two regressions
    autograd-multiheadattn  the same, FAST_TASKS, audio_text_models.get_multiheadattn
    autograd-wav2letter     the same, vjp, audio_text_models.get_wav2letter
    autograd-transformer    the same, vjp, audio_text_models.get_transformer
    operator-<op>           benchmarks/operator_benchmark/pt/<op>_test.py, the whole
                            script as `python -m pt.<op>_test --device cuda --iterations 2
                            --warmup_iterations 1 --tag_filter short` runs it, for add,
                            matmul, conv, softmax, cat, index_select
    benchmark-profiler      benchmarks/profiler_benchmark/profiler_bench.py, the whole script:
                            --with_cuda --use_kineto --internal_iter 8 --timer_min_run_time 1
                            (torch.mm loop timed unprofiled, then under autograd.profiler
                            with use_cuda)
  Debian python3-torch 1.13.1 itself:
    benchmark-spectral-fuzz torch/utils/benchmark/examples/spectral_ops_fuzz_test.py, the
                            whole script: --device cuda --bench rfft irfft --samples 1
                            (fuzzed shapes, every dim, timed with benchmark.Timer)

Each run must succeed, show work on cuda:0 (the fake device's peak memory),
have no finding in `devcheck run --fake-cuda --mode fail`'s report but those
named in KNOWN (each with its reason), and give the CPU's results bitwise
(parameter digests, losses, metrics; the operator benchmarks: the cases they
ran) where a program draws the same numbers on both; FAKE_ONLY names those
that are not compared and why, KNOWN_FAILURES the fake-CUDA failures found.
Measured on torch 1.13, 2.6 and 2.14 (MEASURED_ON); on another torch it exits
77 unless programs are named. FAILS_ON_NEWER_TORCH names the older torch's own
programs that no longer run on a newer one, checked to fail there on the CPU.
"""

import argparse
import json
import os
import runpy
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_programs as rp  # noqa: E402

PYTORCH = os.environ.get("DEVCHECK_PYTORCH_TREE", "/var/cache/devcheck/lint-corpus/pytorch-1.13.1+dfsg-4")
TORCH_EXAMPLES = "utils/benchmark/examples"


def digest_values(*values):
    """SHA-256 over every tensor in values (tensors, modules, lists, dicts)."""
    import hashlib

    import torch

    h = hashlib.sha256()

    def add(v):
        if isinstance(v, torch.Tensor):
            h.update(v.detach().to("cpu").contiguous().numpy().tobytes())
        elif isinstance(v, torch.nn.Module):
            add(v.state_dict())
        elif isinstance(v, dict):
            for k in sorted(v, key=str):
                h.update(str(k).encode())
                add(v[k])
        elif isinstance(v, (list, tuple)):
            for x in v:
                add(x)
        else:
            h.update(repr(v).encode())

    for v in values:
        add(v)
    return h.hexdigest()


def printed(text):
    """What a program printed, tensors' device tags taken out (they differ)."""
    return [line.replace(", device='cuda:0'", "") for line in text.splitlines()
            if line.strip() and not any(word in line for word in ("Time", "time", "/s", "eta"))]


def captured(fn):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        value = fn()
    sys.stdout.write(buffer.getvalue())
    return value, buffer.getvalue()


# ---- torchvision references ----------------------------------------------------
def driver_detection(device_name, amp=False):
    import torch
    from torch import nn

    sys.modules.pop("utils", None)
    engine = _import_vision("detection", "engine")
    utils = sys.modules["utils"]
    from group_by_aspect_ratio import GroupedBatchSampler

    class TinyDetector(nn.Module):
        """A model with torchvision's detection interface: images and targets
        in, a dict of losses out (the reference trains whatever it is given)."""

        def __init__(self, num_classes):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                                      nn.Flatten())
            self.cls = nn.Linear(32, num_classes)
            self.box = nn.Linear(32, 4)

        def forward(self, images, targets):
            feats = self.body(torch.stack([nn.functional.interpolate(i[None], size=(8, 8))[0] for i in images]))
            labels = torch.stack([t["labels"][0] for t in targets])
            boxes = torch.stack([t["boxes"][0] for t in targets])
            return {"loss_classifier": nn.functional.cross_entropy(self.cls(feats), labels),
                    "loss_box_reg": nn.functional.smooth_l1_loss(self.box(feats), boxes)}

    torch.manual_seed(0)
    device = torch.device(device_name)
    samples = []
    for i in range(16):
        h, w = (8, 12) if i % 2 else (12, 8)
        box = torch.rand(2, 2) * 4
        samples.append((torch.randn(3, h, w), {"boxes": torch.cat([box, box + 4], 1),
                                               "labels": torch.randint(1, 4, (2,))}))
    group_ids = [i % 2 for i in range(16)]  # aspect-ratio groups, as create_aspect_ratio_groups makes
    sampler = GroupedBatchSampler(torch.utils.data.RandomSampler(samples), group_ids, 4)
    loader = torch.utils.data.DataLoader(samples, batch_sampler=sampler, collate_fn=utils.collate_fn)
    model = TinyDetector(4).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)
    scaler = torch.cuda.amp.GradScaler() if amp else None
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1], gamma=0.1)

    def work():
        for epoch in range(2):
            engine.train_one_epoch(model, optimizer, loader, device, epoch, 2, scaler)
            lr_scheduler.step()

    _, text = captured(work)
    result = dict(numbers=rp.NUMBERS.findall(text), digest=digest_values(model))
    if amp:
        result["scaler_enabled"] = scaler.is_enabled()
        result["finite"] = all(torch.isfinite(p).all().item() for p in model.parameters())
    return result


def _import_vision(folder, module):
    sys.dont_write_bytecode = True
    sys.meta_path.insert(0, rp._StubFinder())
    sys.path.insert(0, os.path.join(rp.VISION, "references", folder))
    return __import__(module)


def driver_video(device_name, amp=False):
    import torch
    from torch import nn

    train = _import_vision("video_classification", "train")

    class Clips(torch.utils.data.Dataset):
        """Video clips as torchvision's VideoClips gives them: (C, T, H, W),
        label, video index; several clips per video."""

        def __init__(self):
            g = torch.Generator().manual_seed(1)
            self.samples = [("video%d" % i, i % 6) for i in range(6)]
            self.classes = list("abcdef")  # utils.accuracy takes the top 5
            self.clips = [(torch.randn(3, 4, 8, 8, generator=g), v, v) for v in range(6) for _ in range(2)]

        def __len__(self):
            return len(self.clips)

        def __getitem__(self, i):
            return self.clips[i]

    torch.manual_seed(0)
    device = torch.device(device_name)
    dataset = Clips()
    loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=True)
    loader_test = torch.utils.data.DataLoader(dataset, batch_size=4)
    model = nn.Sequential(nn.Conv3d(3, 6, 3, padding=1), nn.BatchNorm3d(6), nn.ReLU(), nn.AdaptiveAvgPool3d(1),
                          nn.Flatten(), nn.Linear(6, 6)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    # as main() chains them: a linear warm-up, then MultiStepLR
    iters = len(loader)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=iters)
    main_lr = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[iters], gamma=0.1)
    lr_scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, main_lr], milestones=[iters])

    def work():
        for epoch in range(2):
            train.train_one_epoch(model, criterion, optimizer, lr_scheduler, loader, device, epoch, 1, scaler)
            acc = train.evaluate(model, criterion, loader_test, device)
        return acc

    scaler = torch.cuda.amp.GradScaler() if amp else None  # main()'s --amp
    acc, text = captured(work)
    if amp:
        return dict(scaler_enabled=scaler.is_enabled(), acc=acc,
                    finite=all(torch.isfinite(p).all().item() for p in model.parameters()))
    return dict(numbers=rp.NUMBERS.findall(text), video=[line for line in text.splitlines() if " * " in line],
                acc=acc, digest=digest_values(model))


def driver_optical_flow(device_name):
    import torch
    from torch import nn

    train = _import_vision("optical_flow", "train")
    utils = sys.modules["utils"]

    class TinyFlow(nn.Module):
        """RAFT's interface: two images in, a list of flow refinements out."""

        def __init__(self):
            super().__init__()
            self.enc = nn.Conv2d(6, 8, 3, padding=1)
            self.step = nn.Conv2d(10, 2, 3, padding=1)

        def forward(self, image1, image2, num_flow_updates=3):
            f = torch.relu(self.enc(torch.cat([image1, image2], 1)))
            flow = torch.zeros_like(image1[:, :2])
            out = []
            for _ in range(num_flow_updates):
                flow = flow + self.step(torch.cat([f, flow], 1))
                out.append(flow)
            return out

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    blobs = [(torch.randn(3, 14, 14, generator=g), torch.randn(3, 14, 14, generator=g),
              torch.randn(2, 14, 14, generator=g), torch.rand(14, 14, generator=g) > 0.2) for _ in range(8)]
    args = argparse.Namespace(device=device_name, num_flow_updates=3, gamma=0.8, batch_size=2, workers=0,
                              distributed=False)
    model = TinyFlow().to(torch.device(device_name))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-5, eps=1e-8)
    loader = torch.utils.data.DataLoader(blobs, batch_size=2, shuffle=True, drop_last=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, epochs=2, steps_per_epoch=len(loader),
                                                    pct_start=0.05, cycle_momentum=False,
                                                    anneal_strategy="linear")
    val = [(b[0], b[1], b[2][:, :13, :13].contiguous(), b[3][:13, :13].contiguous()) for b in blobs[:3]]
    val = [(b[0][:, :13, :13].contiguous(), b[1][:, :13, :13].contiguous(), b[2], b[3]) for b in val]

    def work():
        for _ in range(2):
            logger = utils.MetricLogger()
            logger.add_meter("loss", fmt="{median:.4f} ({global_avg:.4f})")
            logger.add_meter("epe", fmt="{median:.4f} ({global_avg:.4f})")
            train.train_one_epoch(model, optimizer, scheduler, loader, logger, args)
            print("train", logger)
            train._evaluate(model, args, val, padder_mode="sintel", batch_size=1, header="val")

    _, text = captured(work)
    return dict(printed=[line for line in printed(text) if line.startswith(("train", "val"))],
                digest=digest_values(model))


# ---- PyTorch 1.13.1's functorch examples and benchmarks --------------------------
def run_script(path, argv, module=None, package_root=None):
    """Runs a script as `python path argv...` would, with the seeds set."""
    import random

    import numpy as np
    import torch

    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
    sys.argv = [path] + argv
    sys.path.insert(0, package_root or os.path.dirname(path))
    if module:
        return runpy.run_module(module, run_name="__main__", alter_sys=True)
    return runpy.run_path(path, run_name="__main__")


def driver_ensembling(device_name):
    path = os.path.join(PYTORCH, "functorch/examples/ensembling/parallel_train.py")
    g, text = captured(lambda: run_script(path, ["--device", device_name]))
    losses = [float(line[len("tensor("):].split(",")[0].rstrip(")")) for line in printed(text)
              if line.startswith("tensor(") and not line.startswith("tensor([")]  # step 4's, one model
    # checked where not compared: step 4 trains (its printed loss falls), the weights are finite
    return dict(printed=printed(text), digest=digest_values(g["weights"], g["points"], g["labels"]),
                finite=losses[-1] < losses[0] and all_finite(g["weights"]))


def all_finite(values):
    import torch

    if isinstance(values, torch.Tensor):
        return bool(torch.isfinite(values).all())
    if isinstance(values, dict):
        return all(all_finite(v) for v in values.values())
    if isinstance(values, (list, tuple)):
        return all(all_finite(v) for v in values)
    return True


class TinyOmniglot:
    """OmniglotNShot's interface (x_train, x_test, batchsz, next(mode)) over
    random 28x28 characters: the real loader downloads Omniglot."""

    def __init__(self, device, batchsz=2, n_way=3, k_shot=1, k_query=2):
        import numpy as np

        rng = np.random.RandomState(3)
        self.x = rng.rand(12, 4, 1, 28, 28).astype("float32")
        self.x_train, self.x_test = self.x[:8], self.x[8:]
        self.batchsz, self.n_way, self.k_shot, self.k_query, self.device = batchsz, n_way, k_shot, k_query, device
        self.rng = rng

    def next(self, mode="train"):
        import torch

        pack = self.x_train if mode == "train" else self.x_test
        out = [[], [], [], []]
        for _ in range(self.batchsz):
            classes = self.rng.choice(pack.shape[0], self.n_way, False)
            for part, count, offset in ((0, self.k_shot, 0), (2, self.k_query, self.k_shot)):
                out[part].append(torch.from_numpy(pack[classes, offset:offset + count].reshape(-1, 1, 28, 28)))
                out[part + 1].append(torch.arange(self.n_way).repeat_interleave(count))
        return [torch.stack(x).to(self.device) for x in out]


def _maml(device_name, variant):
    import importlib.util

    import torch
    import torch.optim as optim
    from functorch import make_functional_with_buffers
    from torch import nn

    folder = os.path.join(PYTORCH, "functorch/examples/maml_omniglot")
    sys.path.insert(0, folder)
    sys.meta_path.insert(0, rp._StubFinder())  # support/omniglot_loaders imports torchvision, PIL
    for name in ("matplotlib", "pandas"):      # plot() only, which this driver does not call
        rp.STUBBED_EXTRA.add(name)
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("maml", os.path.join(folder, "maml-omniglot-%s.py" % variant))
    maml = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maml)
    if variant == "transforms" and CALLING_THREAD_AUTOGRAD:
        # Its meta-gradient adds three or more gradients at some nodes in the
        # order the autograd engine runs their producers, which for CUDA
        # tensors (on a GPU too) is the device thread's (ORDER below): with the
        # engine's device threads off, both runs add them in the CPU's order.
        torch.autograd.set_multithreading_enabled(False)
    torch.manual_seed(1)
    device = torch.device(device_name)
    db = TinyOmniglot(device)
    # main()'s network, as each script builds it
    if variant == "ptonly":
        bn = lambda: nn.BatchNorm2d(64, momentum=1, affine=True)  # noqa: E731
    else:
        bn = lambda: nn.BatchNorm2d(64, affine=True, track_running_stats=False)  # noqa: E731
    net = nn.Sequential(
        nn.Conv2d(1, 64, 3), bn(), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(64, 64, 3), bn(), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(64, 64, 3), bn(), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(64, db.n_way)).to(device)
    net.train()
    fnet, params, buffers = make_functional_with_buffers(net)
    meta_opt = optim.Adam(params, lr=1e-3)
    state, log = [params, buffers, fnet], []

    def work():
        for epoch in range(2):
            maml.train(db, state, device, meta_opt, epoch, log)
            maml.test(db, state, device, epoch, log)

    _, text = captured(work)
    losses = [(x["mode"], float(x["loss"]), float(x["acc"])) for x in log]
    return dict(losses=losses, digest=digest_values(params, buffers))


def driver_fastrnns(device_name):
    sys.path.insert(0, os.path.join(PYTORCH, "benchmarks"))
    sys.dont_write_bytecode = True
    sys.meta_path.insert(0, rp._StubFinder())  # runner.py's CNN runners (torchvision) are not run
    from fastrnns import test
    from fastrnns.factory import pytorch_lstm_creator
    from fastrnns.runner import get_nn_runners

    sizes = dict(seqLength=5, numLayers=1, inputSize=16, hiddenSize=16, miniBatch=4, device=device_name, seed=17)
    outputs = []
    for name, creator, context in get_nn_runners("jit_premul", "jit"):
        with context():
            _, text = captured(lambda: test.test_rnns(creator, pytorch_lstm_creator, **sizes))
            if "Pdb" in text:  # test.py's assertEqual calls pdb.set_trace() on a mismatch
                raise AssertionError("fastrnns test.py found %s unequal to nn.LSTM" % name)
            runner = creator(**sizes)  # the experiment's own outputs, for the comparison with the CPU
            outputs.append(runner.forward(*runner.inputs))
    control = pytorch_lstm_creator(**sizes)
    outputs.append(control.forward(*control.inputs))
    return dict(digest=digest_values(outputs), finite=all_finite(outputs))


def _functional_autograd(device_name, models, tasks=None):
    import torch

    folder = os.path.join(PYTORCH, "benchmarks/functional_autograd_benchmark")
    sys.path.insert(0, folder)
    sys.dont_write_bytecode = True
    import functional_autograd_benchmark as fab

    device = torch.device(device_name)
    digests, finite = {}, True
    for model_def in fab.MODELS:
        if model_def.name not in models:
            continue
        torch.manual_seed(0)
        model, inp = model_def.getter(device)
        for task in tasks or model_def.tasks:
            torch.manual_seed(1)
            v = fab.get_v_for(model, inp, task)
            func = fab.get_task_func(task)
            res = func(model, inp, v=v, strict=True) if v is not None else func(model, inp, strict=True)
            if fab.has_functorch and task != "jacobian":  # the script's own consistency check
                fab.run_once_functorch(model, inp, task, v, maybe_check_consistency=True)
            digests["%s/%s" % (model_def.name, task)] = digest_values(res)
            finite = finite and all_finite(res)
    return dict(results=digests, finite=finite)


def driver_operator(device_name, test):
    """benchmarks/operator_benchmark/pt/<test>.py as `python -m pt.<test>` runs it."""
    rp.STUBBED_EXTRA.add("benchmark_cpp_extension")  # the C++-extension ops, imported and never called
    sys.meta_path.insert(0, rp._StubFinder())
    sys.dont_write_bytecode = True
    root = os.path.join(PYTORCH, "benchmarks/operator_benchmark")
    _, text = captured(lambda: run_script(os.path.join(root, "pt", test + ".py"),
                                          ["--device", device_name, "--iterations", "2", "--warmup_iterations", "1",
                                           "--tag_filter", "short"], module="pt." + test, package_root=root))
    # the cases it ran (the device in their names made alike); their timings are not compared
    return dict(cases=[line.replace(device_name, "DEVICE") for line in text.splitlines()
                       if line.startswith("# Name:")])


def driver_profiler(device_name):
    path = os.path.join(PYTORCH, "benchmarks/profiler_benchmark/profiler_bench.py")
    argv = ["--use_kineto", "--internal_iter", "8", "--timer_min_run_time", "1"]
    _, text = captured(lambda: run_script(path, argv + (["--with_cuda"] if device_name == "cuda" else [])))
    return dict(runs=[line for line in text.splitlines() if line.startswith("Profiling")])


def driver_spectral(device_name):
    import torch

    path = os.path.join(os.path.dirname(torch.__file__), TORCH_EXAMPLES, "spectral_ops_fuzz_test.py")
    _, text = captured(lambda: run_script(path, ["--device", device_name, "--bench", "rfft", "irfft",
                                                 "--samples", "1"]))
    return dict(completed=[line for line in text.splitlines() if line.startswith("Completed")])


DRIVERS = {
    "vision-detection": driver_detection,
    "vision-detection-amp": lambda d: driver_detection(d, amp=True),
    "vision-video": driver_video,
    "vision-video-amp": lambda d: driver_video(d, amp=True),
    "vision-optical-flow": driver_optical_flow,
    "functorch-ensembling": driver_ensembling,
    "functorch-maml-ptonly": lambda d: _maml(d, "ptonly"),
    "functorch-maml-transforms": lambda d: _maml(d, "transforms"),
    "fastrnns-test": driver_fastrnns,
    "autograd-ppl": lambda d: _functional_autograd(d, ("ppl_simple_reg", "ppl_robust_reg")),
    "autograd-multiheadattn": lambda d: _functional_autograd(d, ("multiheadattn",)),
    "autograd-wav2letter": lambda d: _functional_autograd(d, ("wav2letter",), ("vjp",)),
    "autograd-transformer": lambda d: _functional_autograd(d, ("transformer",), ("vjp",)),
    "benchmark-spectral-fuzz": driver_spectral,
    "benchmark-profiler": driver_profiler,
}
OPERATORS = ("add", "matmul", "conv", "softmax", "cat", "index_select")  # those whose short configs take --device
DRIVERS.update({"operator-" + t: (lambda t: lambda d: driver_operator(d, t + "_test"))(t) for t in OPERATORS})
# Not compared with the CPU, and why.
DRAWS = ("it draws its data with device= on the device and its weights on the CPU: on the CPU lane "
         "one generator serves both, under CUDA two do (as on a GPU), so the numbers differ")
FAKE_ONLY = {
    "vision-detection-amp": "on a CPU GradScaler turns itself off: there is nothing to compare",
    "vision-video-amp": "on a CPU GradScaler turns itself off: there is nothing to compare",
    "benchmark-profiler": "its results are timings (the profiler's CUDA events are fake CUDA's: tests/fake_cuda/profiler.py)",
    "functorch-ensembling": DRAWS,
    "autograd-ppl": DRAWS,
    "autograd-multiheadattn": DRAWS,
    "autograd-wav2letter": DRAWS,
    "autograd-transformer": DRAWS,
    "fastrnns-test": (DRAWS + "; test.py compares its TorchScript LSTMs with nn.LSTM itself (to 1e-3), "
                      "and that passes under fake CUDA"),
    "benchmark-spectral-fuzz": "its results are timings",
}
# The autograd engine's order. functorch-maml-transforms's meta-gradient (vmap
# of nested grad) makes nodes that receive three or more gradients, added in
# the order the engine runs their producers: highest sequence number first,
# numbers that come from a per-thread counter. A backward of CUDA tensors runs
# on the engine's device thread (on a GPU as under fake CUDA), so the nodes
# the inner grads create are numbered from that thread's counter, not the
# main thread's as on the CPU: the order and the float32 sums' last bits
# differ (second step's loss 1.463653564 CPU, 1.463653803 fake CUDA on 1.13),
# while the kernels compute the CPU's numbers (tests/fake_cuda/autograd_order.py).
# torch >= 2.0 can run the engine on the calling thread
# (torch.autograd.set_multithreading_enabled(False)): the driver does so in
# both runs and they are compared bitwise; torch 1.13 cannot, and there the
# program is not compared.
import torch  # noqa: E402 -- the drivers and main() need it too

CALLING_THREAD_AUTOGRAD = hasattr(torch.autograd, "set_multithreading_enabled")
ORDER = ("its meta-gradient adds three or more gradients at some nodes in the autograd engine's order, which "
         "for CUDA tensors (on a GPU too) is the device thread's, not the CPU's (the last bits differ: second "
         "loss 1.463653564 CPU, 1.463653803 fake CUDA); torch %s cannot run the engine on the calling thread "
         "(torch.autograd.set_multithreading_enabled, torch >= 2.0, where it is compared bitwise); "
         "tests/fake_cuda/autograd_order.py holds fake CUDA to the CPU's numbers where the order is the CPU's")
if not CALLING_THREAD_AUTOGRAD:
    FAKE_ONLY["functorch-maml-transforms"] = ORDER % torch.__version__
# Fake-CUDA failures found by this corpus, not yet fixed in src/: program ->
# (what the error says, the minimal reproduction in docs/fake-cuda-programs.md).
# The run passes while the failure is exactly this one, fails on any other,
# and fails once it is gone (then this table is out of date).
KNOWN_FAILURES = {
    # None now: autograd-ppl and autograd-multiheadattn failed here until fake
    # CUDA kept forward-mode AD's ZeroTensor bit (src/fake/kernels.cc).
}
# The torches this corpus was measured on under fake CUDA (the lanes: Debian
# 12's 1.13, Debian 13's 2.6, sid's 2.14). On another torch the whole test is
# skipped (exit 77) until it is measured there.
MEASURED_ON = ("1.13", "2.6", "2.14")
# Programs that are older torch's own and no longer run on a newer torch, with
# or without devcheck: program -> (the first torch they fail on, what the CPU
# run says there, why). On such a torch only the CPU run is made, and it must
# fail with exactly that message (so fake CUDA is never what is excused); once
# it runs there the test fails until this table is updated.
FAILS_ON_NEWER_TORCH = {
    "benchmark-profiler": ((2, 14), "unexpected keyword argument 'use_cuda'",
                           "torch 1.13's own profiler benchmark passes profile(use_cuda=True), "
                           "which later torch removed"),
    "benchmark-spectral-fuzz": ((2, 14), "AssertionError: Distribution is not normalized",
                                "torch 1.13's own spectral-ops fuzz test: its fuzzer's check that "
                                "the shape distribution sums to 1 fails with the NumPy of that lane"),
}


def torch_version(text):
    """(major, minor) of a torch version string: "2.14.1+debian" -> (2, 14)."""
    major, minor = text.split("+")[0].split(".")[:2]
    return int(major), int(minor)


def measured_on(text):
    return any(text == v or text.startswith(v + ".") or text.startswith(v + "+") for v in MEASURED_ON)


def fails_here(name, version):
    entry = FAILS_ON_NEWER_TORCH.get(name)
    return entry is not None and torch_version(version) >= entry[0]


def check_fails_on_this_torch(o, name):
    """The CPU run alone, which must fail as FAILS_ON_NEWER_TORCH says."""
    first, said, why = FAILS_ON_NEWER_TORCH[name]
    row = dict(program=name, notes=[], findings=0, cpu_equal=None)
    with tempfile.TemporaryDirectory(prefix="fake-cuda-upstream-") as cwd:
        argv = [o.python, os.path.abspath(__file__), "--driver", name, "--device", "cpu",
                "--out", os.path.join(cwd, "cpu.json")]
        rc, _, err, secs = rp.run(argv, cwd, o.timeout)
    row["cpu_seconds"] = round(secs, 1)
    if rc != 0 and said in err:
        row["fake_ok"] = True
        row["notes"].append("not run under fake CUDA: fails on torch >= %d.%d without devcheck too (%s): %s"
                            % (first[0], first[1], why, rp.tail(err)))
    else:
        row["fake_ok"] = False
        row["notes"].append("expected the CPU run to fail with %r on this torch (%s); it %s: "
                            "update FAILS_ON_NEWER_TORCH and measure it under fake CUDA"
                            % (said, why, "passed" if rc == 0 else "failed otherwise: " + rp.tail(err)))
    return row


# Findings that are true, or known to be false (4th field "known false"):
# program -> (what it says, the lines it may name, why).
KNOWN = {}
# Findings that are true on some torches only: program -> (first torch, first
# torch without it, what it says, the lines it may name, why). On a torch in
# the range the finding must be there (the run fails once it is gone).
KNOWN_ON_TORCH = {
    "functorch-maml-transforms": (
        (2, 6), (2, 14), "many small copies",
        ("functorch/examples/maml_omniglot/maml-omniglot-transforms.py:167",),
        "torch 2.6's vmap builds its error text on every call, ready or not: _get_name(func) is "
        "repr() of the script's functools.partial, which prints every cuda Parameter it holds, and "
        "printing a cuda tensor copies it to the host piece by piece (192 copies per step, on a GPU "
        "too); torch 2.14's _get_name names a partial without printing it"),
}


def known_here(version):
    """KNOWN and the KNOWN_ON_TORCH entries that hold on torch `version`."""
    known = dict(KNOWN)
    v = torch_version(version)
    for name, (first, fixed, said, lines, why) in KNOWN_ON_TORCH.items():
        if first <= v < fixed:
            known[name] = (said, lines, why)
    return known
# The source tree each program runs from (the spectral benchmark is python3-torch's own).
NEEDS = {name: rp.VISION if name.startswith("vision-") else PYTORCH for name in DRIVERS
         if name != "benchmark-spectral-fuzz"}


def judge(name, row):
    """KNOWN_FAILURES, after real_programs' checks."""
    row.pop("_results", None)
    if name in KNOWN_FAILURES:
        said, why = KNOWN_FAILURES[name]
        if row["fake_ok"]:
            row["fake_ok"] = False
            row["notes"].append("the known failure (%s) is gone: update KNOWN_FAILURES and the docs" % why)
        elif any(said in n for n in row["notes"]):
            row["fake_ok"], row["cpu_equal"], row["known_failure"] = True, None, why
            row["notes"] = ["known fake-CUDA failure (%s): %s" % (why, said)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devcheck", help="the devcheck CLI")
    parser.add_argument("--lib", help="libdevcheck_fake_device.so (without --devcheck: no report checks)")
    parser.add_argument("--python", default=sys.executable, help="python3 with torch (default: this one)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run (default 300)")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--device", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="programs to run (default: all)")
    o = parser.parse_args()
    if o.driver:
        rp.driver_main(o.driver, o.device, o.out, DRIVERS)
        return 0
    if not o.devcheck and not o.lib:
        parser.error("give --devcheck")
    o.devcheck = o.devcheck and os.path.abspath(o.devcheck)
    o.lib = o.lib and os.path.abspath(o.lib)
    import torch

    if not measured_on(torch.__version__) and not o.names:
        print("upstream_programs: measured under fake CUDA on torch %s only, this is torch %s: skipped "
              "(name the programs to run them here; docs/fake-cuda-programs.md)"
              % (", ".join(MEASURED_ON), torch.__version__))
        return 77
    names = o.names or list(DRIVERS)
    missing = sorted({NEEDS[n] for n in names if n in NEEDS and not os.path.isdir(NEEDS[n])})
    if missing:  # install-deps.sh fetches them; a lane without them cannot test this
        print("upstream_programs: missing %s (scripts/fetch-program-corpus.sh, fetch-lint-corpus.sh)"
              % ", ".join(missing))
        return 1
    rows = []
    known = known_here(torch.__version__)
    for name in names:
        if fails_here(name, torch.__version__):
            row = check_fails_on_this_torch(o, name)
            rows.append(row)
            print("%-28s fake %-3s %s" % (name, {True: "-", False: "NO"}[row["fake_ok"]], row["notes"][0]),
                  flush=True)
            continue
        row = rp.check_python(o, name, script=__file__, fake_only=FAKE_ONLY, known=known)
        if name in known and name not in KNOWN and not any(n.startswith("true finding") for n in row["notes"]):
            row["fake_ok"] = False
            row["notes"].append("the finding KNOWN_ON_TORCH expects on torch %s is gone: update the table"
                                % torch.__version__)
        if name in FAKE_ONLY:
            row["notes"].append("not compared: " + FAKE_ONLY[name])
        judge(name, row)
        rows.append(row)
        equal = {True: "bitwise", False: "NO", None: "-"}[row.get("cpu_equal")]
        print("%-28s fake %-3s findings %-2s cpu-equal %-7s %5.1f s + %5.1f s  %s"
              % (name, {True: "ok", False: "NO"}[row["fake_ok"]], row.get("findings", "-"), equal,
                 row.get("fake_seconds", 0), row.get("cpu_seconds", 0), "; ".join(row["notes"])), flush=True)
    if o.json:
        with open(o.json, "w", encoding="utf-8") as f:
            json.dump(dict(programs=rows), f, indent=2)
    bad = [r["program"] for r in rows if not r["fake_ok"] or r.get("cpu_equal") is False or
           (o.devcheck and r.get("findings") is None) or
           any(n.startswith("false finding") for n in r["notes"])]
    failed = (": failed " + ", ".join(bad)) if bad else ""
    print("upstream_programs: %d programs, %d passed%s" % (len(rows), len(rows) - len(bad), failed))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
