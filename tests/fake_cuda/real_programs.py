"""Real programs nobody here wrote, run unmodified under fake CUDA and on the
plain CPU: no device error, no false finding, CPU-equal results.

    /usr/bin/python3 real_programs.py --lib build/src/libdevcheck_fake_device.so \
        [--devcheck build/devcheck] [--cxx-suite] [--json out.json] [names...]

Python programs (torch and numpy only; run from where they live, never copied):

  vision-classification  torchvision 0.14.1's references/classification/train.py:
                         its train_one_epoch (two epochs, with model EMA and
                         gradient clipping) and evaluate, and utils.py (MetricLogger,
                         SmoothedValue, accuracy, ExponentialMovingAverage)
  vision-classification-amp  the same with --amp (torch.cuda.amp.autocast and
                         GradScaler); fake CUDA only (on a CPU, GradScaler turns itself
                         off, so there is nothing to compare)
  vision-segmentation    references/segmentation/train.py: train_one_epoch with
                         PolynomialLR, criterion with an aux head, evaluate with
                         utils.ConfusionMatrix
  vision-similarity      references/similarity/train.py: train_epoch with loss.py's
                         TripletMarginLoss (batch-hard mining) and sampler.py's
                         PKSampler, then evaluate/find_best_threshold
  torch-collect-env      Debian python3-torch's torch/utils/collect_env.py (runs; says
                         CUDA is available)

torchvision itself cannot be imported here (it needs PIL and its compiled ops), so
a driver -- this file, run with --driver -- imports each reference train.py with
the modules it names but the tested functions never call (torchvision, PIL,
pycocotools) replaced by inert stand-ins, builds a tiny model and synthetic data
as the script's main() would, and calls the script's own functions. Device: "cuda"
under fake CUDA (the scripts' default), "cpu" on the plain lane.

CPU-equal means bitwise: the SHA-256 of every parameter and buffer after training
(and of the EMA model) must be the same on both lanes, and so must every loss,
accuracy and confusion-matrix number the scripts print. The fake-CUDA run must
also show work on cuda:0: the fake device's peak memory is above 0.

upstream_programs.py runs 20 more programs through check_python (its own
drivers, FAKE_ONLY and findings tables); docs/fake-cuda-programs.md lists all.

C++ programs (with --devcheck): Debian libtorch-test's tests whose CUDA parts are
skipped without a GPU -- basic (BasicTest.BasicTestCUDA), native_test
(TestNative.NativeTestGPU), scalar_tensor_test (TestScalarTensor.TestScalarTensorCUDA)
-- under `devcheck run --fake-cuda=2`: they must pass, their report must show work on
cuda:0 (proof that the CUDA branch ran) and no finding. These tests compare their
CUDA results with CPU results themselves. --cxx-suite also runs every libtorch-test
binary plainly and under fake CUDA and compares the exit statuses.
"""

import argparse
import contextlib
import hashlib
import importlib.abc
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCH = os.path.join(HERE, "launch.py")
# The torchvision 0.14.1 source tree of the lint corpus (--vision, or
# $DEVCHECK_VISION_TREE for the driver processes, names another copy of it).
VISION = os.environ.get("DEVCHECK_VISION_TREE", "/var/cache/devcheck/lint-corpus/pytorch-vision-0.14.1-2")
LIBTORCH_TEST = "/usr/lib/libtorch-test"
CXX_CUDA_TESTS = [
    ("basic", "BasicTest.BasicTestCUDA"),
    ("native_test", "TestNative.NativeTestGPU"),
    ("scalar_tensor_test", "TestScalarTensor.TestScalarTensorCUDA"),
]
# libtorch-test binaries the suite skips: a benchmark and a deliberately slow test.
CXX_SUITE_SKIP = {"c10_intrusive_ptr_benchmark", "c10_DeadlockDetection_test"}


# ---- the driver side: runs inside the program's process ----------------------
STUBBED = ("torchvision", "PIL", "pycocotools")
STUBBED_EXTRA = set()  # more, where a driver needs them (upstream_programs.py)


class _StubMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (_Stub,), {})


class _Stub(metaclass=_StubMeta):
    """Anything a module body may touch at import: attributes, calls, bases."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Stub()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (_Stub,), {})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubMeta(name, (_Stub,), {})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED or fullname.split(".")[0] in STUBBED_EXTRA:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


def import_reference(folder):
    """Imports references/<folder>/train.py as the script's own folder would."""
    sys.dont_write_bytecode = True  # leave the source tree as it is
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, os.path.join(VISION, "references", folder))
    import train  # noqa: E402  (the reference script, unmodified)
    return train


def state_digest(*modules):
    h = hashlib.sha256()
    for module in modules:
        for name, t in module.state_dict().items():
            h.update(name.encode())
            h.update(t.detach().to("cpu").contiguous().numpy().tobytes())
    return h.hexdigest()


# Numbers the scripts print that must match across lanes (timings do not).
NUMBERS = re.compile(r"(loss: \S+ \(\S+\)|acc1: \S+ \(\S+\)|acc5: \S+ \(\S+\)|Acc@1 \S+ Acc@5 \S+"
                     r"|accuracy: \S+, threshold: \S+|global correct: \S+|average row correct: .*"
                     r"|IoU: .*|mean IoU: \S+|lr: \S+|\| loss: \S+ \| % avg hard triplets: \S+)")


def run_captured(fn):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        value = fn()
    text = buffer.getvalue()
    sys.stdout.write(text)
    return value, NUMBERS.findall(text)


def tiny_cnn(num_classes):
    from torch import nn

    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, num_classes))


def driver_classification(device_name, amp=False):
    import torch
    from torch import nn

    train = import_reference("classification")
    utils = sys.modules["utils"]
    torch.manual_seed(0)
    device = torch.device(device_name)
    images, targets = torch.randn(48, 3, 8, 8), torch.randint(0, 6, (48,))
    dataset = torch.utils.data.TensorDataset(images, targets)
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)
    data_loader_test = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=False)
    args = argparse.Namespace(print_freq=2, clip_grad_norm=1.0, model_ema_steps=2, lr_warmup_epochs=1)
    # as main() does it
    model = tiny_cnn(6)
    model.to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scaler = torch.cuda.amp.GradScaler() if amp else None
    model_ema = utils.ExponentialMovingAverage(model, device=device, decay=0.9)

    def work():
        for epoch in range(2):
            train.train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, args, model_ema, scaler)
            train.evaluate(model, criterion, data_loader_test, device=device)
        return train.evaluate(model_ema, criterion, data_loader_test, device=device, log_suffix="EMA")

    acc1, numbers = run_captured(work)
    result = dict(numbers=numbers, ema_acc1=acc1, digest=state_digest(model, model_ema))
    if amp:
        result["scaler_enabled"] = scaler.is_enabled()
        result["finite"] = all(torch.isfinite(p).all().item() for p in model.parameters())
    return result


def driver_segmentation(device_name):
    import torch
    from torch import nn

    train = import_reference("segmentation")
    utils = sys.modules["utils"]

    class TinySeg(nn.Module):
        def __init__(self, num_classes):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
            self.out = nn.Conv2d(8, num_classes, 1)
            self.aux = nn.Conv2d(8, num_classes, 1)

        def forward(self, x):
            f = self.body(x)
            return {"out": self.out(f), "aux": self.aux(f)}

    torch.manual_seed(0)
    device = torch.device(device_name)
    num_classes = 4
    images = torch.randn(12, 3, 10, 10)
    masks = torch.randint(0, num_classes, (12, 10, 10))
    masks[:, :2] = 255  # ignore_index, as the VOC borders
    pairs = [(images[i], masks[i]) for i in range(12)]
    data_loader = torch.utils.data.DataLoader(pairs, batch_size=4, shuffle=True, collate_fn=utils.collate_fn)
    data_loader_test = torch.utils.data.DataLoader(pairs, batch_size=1, collate_fn=utils.collate_fn)
    model = TinySeg(num_classes)
    model.to(device)
    params_to_optimize = [
        {"params": [p for p in model.body.parameters() if p.requires_grad]},
        {"params": [p for p in model.out.parameters() if p.requires_grad]},
        {"params": [p for p in model.aux.parameters() if p.requires_grad], "lr": 0.1},
    ]
    optimizer = torch.optim.SGD(params_to_optimize, lr=0.01, momentum=0.9, weight_decay=1e-4)
    iters_per_epoch = len(data_loader)
    lr_scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=iters_per_epoch * 2, power=0.9)

    def work():
        for epoch in range(2):
            train.train_one_epoch(model, train.criterion, optimizer, data_loader, lr_scheduler, device, epoch, 1)
            confmat = train.evaluate(model, data_loader_test, device=device, num_classes=num_classes)
            print(confmat)
        return confmat.mat.tolist()

    mat, numbers = run_captured(work)
    return dict(numbers=numbers, confusion_matrix=mat, digest=state_digest(model))


def driver_similarity(device_name):
    import torch
    from torch import nn
    from torch.optim import Adam

    train = import_reference("similarity")
    from loss import TripletMarginLoss
    from model import EmbeddingNet
    from sampler import PKSampler

    torch.manual_seed(0)
    device = torch.device(device_name)
    p, k = 4, 3
    labels = torch.arange(8).repeat_interleave(6)
    images = torch.randn(len(labels), 3, 8, 8) + labels.view(-1, 1, 1, 1) * 0.3
    dataset = torch.utils.data.TensorDataset(images, labels)
    targets = labels.tolist()
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(8, 16))
    model = EmbeddingNet(backbone)
    model.to(device)
    criterion = TripletMarginLoss(margin=0.2, mining="batch_hard")
    optimizer = Adam(model.parameters(), lr=1e-3)
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=p * k, sampler=PKSampler(targets, p, k))
    test_loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=False)

    def work():
        for epoch in range(1, 3):
            train.train_epoch(model, optimizer, criterion, train_loader, device, epoch, 2)
            train.evaluate(model, test_loader, device)

    _, numbers = run_captured(work)
    return dict(numbers=numbers, digest=state_digest(model))


DRIVERS = {
    "vision-classification": lambda device: driver_classification(device),
    "vision-classification-amp": lambda device: driver_classification(device, amp=True),
    "vision-segmentation": driver_segmentation,
    "vision-similarity": driver_similarity,
}
FAKE_ONLY = {"vision-classification-amp"}


def driver_main(name, device, out, drivers=DRIVERS):
    import random

    random.seed(0)  # PKSampler draws with the random module
    result = drivers[name](device)
    if device.startswith("cuda"):  # proof of work on cuda:0 (not compared)
        import torch

        result["_cuda_peak_bytes"] = torch.cuda.max_memory_allocated(0)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)


# ---- the runner side ----------------------------------------------------------
def run(cmd, cwd, timeout, env=None):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           env=env)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), \
            time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace"), \
            (e.stderr or b"").decode(errors="replace"), time.monotonic() - start


def tail(text, n=3):
    """The exception line of a traceback, else the last lines."""
    lines = [l for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception): ", l)]
    if errors:
        return errors[-1][:400]
    return " | ".join(lines[-n:])[:400]


def report_findings(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    return [x for p in report.get("processes", []) for x in p.get("findings", [])], report


def fake_cmd(o, argv, json_path):
    if o.devcheck:
        return [o.devcheck, "run", "--fake-cuda=2", "--mode", "fail", "--json", json_path, "--"] + argv
    return [o.python, LAUNCH, "--lib", o.lib, "--devices", "2"] + argv[1:]


# Findings in a program that are true: the code does on a GPU what the
# finding says, judged by reading it. Each: program -> (what the finding
# says, the lines of the program's own source it may name, why it is true).
TRUE_FINDINGS = {
    "vision-similarity": (
        "many small copies", ("references/similarity/train.py:43", "references/similarity/train.py:44"),
        "find_best_threshold copies a 0-dim threshold and the whole targets tensor to the device in "
        "each of its 151 iterations (thresh.to(device), targets.to(device)) and syncs with .item() "
        "in each: on a GPU, 302 host-to-device copies and 151 syncs per evaluation"),
}


def true_finding(name, finding, table=TRUE_FINDINGS):
    known = table.get(name)
    message = finding.get("message", "")
    return known is not None and known[0] in message and any(line in message for line in known[1])


def check_python(o, name, script=None, fake_only=FAKE_ONLY, known=None):
    """Runs a driver of `script` (this file by default) under fake CUDA and on
    the CPU. known: finding -> (what it says, lines it names, why) for the
    findings that are true (TRUE_FINDINGS) or known to be false."""
    row = dict(program=name, notes=[])
    known = TRUE_FINDINGS if known is None else known
    with tempfile.TemporaryDirectory(prefix="fake-cuda-real-") as cwd:
        out_fake, out_cpu = os.path.join(cwd, "fake.json"), os.path.join(cwd, "cpu.json")
        json_path = os.path.join(cwd, "report.json")
        argv = [o.python, os.path.abspath(script or __file__), "--driver", name, "--device", "cuda",
                "--out", out_fake]
        rc, out, err, secs = run(fake_cmd(o, argv, json_path), cwd, o.timeout)
        row["fake_seconds"] = round(secs, 1)
        row["fake_ok"] = rc == 0 and os.path.exists(out_fake)
        if not row["fake_ok"]:
            row["notes"].append("fake CUDA run failed (exit %s): %s" % (rc, tail(err)))
        if o.devcheck:
            found = report_findings(json_path)
            row["findings"] = None if found is None else len(found[0])
            for finding in (found[0] if found else []):
                first = finding.get("message", "").splitlines()[0]
                if true_finding(name, finding, known):
                    row["notes"].append("%s (%s): %s" % (known[name][3] if len(known[name]) > 3
                                                         else "true finding", known[name][2], first))
                else:
                    row["notes"].append("false finding: " + first)
        if row["fake_ok"]:
            with open(out_fake) as f:
                peak = json.load(f).get("_cuda_peak_bytes", 0)
            if not peak:
                row["fake_ok"] = False
                row["notes"].append("no work on cuda:0 (its peak memory is 0 bytes)")
        if name in fake_only:
            row["cpu_equal"] = None
            if row["fake_ok"]:
                with open(out_fake) as f:
                    fake = json.load(f)
                if not fake.get("scaler_enabled", True) or not fake.get("finite", True):
                    row["fake_ok"] = False
                    row["notes"].append("AMP run: scaler enabled %s, finite %s"
                                        % (fake.get("scaler_enabled"), fake.get("finite")))
            return row
        argv[argv.index("cuda")] = "cpu"
        argv[-1] = out_cpu
        rc, out, err, secs = run(argv, cwd, o.timeout)
        row["cpu_seconds"] = round(secs, 1)
        if rc != 0:
            row["cpu_equal"] = False
            row["notes"].append("CPU run failed: " + tail(err))
            return row
        if not row["fake_ok"]:
            row["cpu_equal"] = False
            return row
        with open(out_fake) as f:
            fake_raw = json.load(f)
        with open(out_cpu) as f:
            cpu_raw = json.load(f)
        row["_results"] = (fake_raw, cpu_raw)  # for a caller's own comparisons; not written out
        fake = {k: v for k, v in fake_raw.items() if not k.startswith("_")}
        cpu = {k: v for k, v in cpu_raw.items() if not k.startswith("_")}
        row["cpu_equal"] = fake == cpu
        row["digest"] = cpu.get("digest", "")[:16]
        row["numbers_compared"] = len(cpu.get("numbers", []))
        if fake != cpu:
            for key in cpu:
                if fake.get(key) != cpu[key]:
                    row["notes"].append("differs in %s: cpu %s / fake %s"
                                        % (key, str(cpu[key])[:120], str(fake.get(key))[:120]))
    return row


def check_collect_env(o):
    row = dict(program="torch-collect-env", notes=[], cpu_equal=None)
    import torch.utils.collect_env as ce  # only for its path

    with tempfile.TemporaryDirectory(prefix="fake-cuda-real-") as cwd:
        json_path = os.path.join(cwd, "report.json")
        rc, out, err, secs = run(fake_cmd(o, [o.python, ce.__file__], json_path), cwd, o.timeout)
        row["fake_seconds"] = round(secs, 1)
        row["fake_ok"] = rc == 0 and "Is CUDA available: True" in out
        if not row["fake_ok"]:
            row["notes"].append("exit %s: %s" % (rc, tail(err + out)))
        if o.devcheck:
            found = report_findings(json_path)
            row["findings"] = None if found is None else len(found[0])
    return row


def cuda_work_seen(report):
    for p in report.get("processes", []):
        for entry in p.get("syncs", []) + p.get("transfers", []):
            if "cuda" in str(entry.get("device", "")) + str(entry.get("direction", "")):
                return True
    return False


def check_cxx(o, binary, test):
    row = dict(program="libtorch-test %s --gtest_filter=%s" % (binary, test), notes=[], cpu_equal=None)
    path = os.path.join(LIBTORCH_TEST, binary)
    with tempfile.TemporaryDirectory(prefix="fake-cuda-real-") as cwd:
        json_path = os.path.join(cwd, "report.json")
        cmd = [o.devcheck, "run", "--fake-cuda=2", "--mode", "fail", "--json", json_path, "--", path,
               "--gtest_filter=" + test]
        rc, out, err, secs = run(cmd, cwd, o.timeout)
        row["fake_seconds"] = round(secs, 1)
        passed = rc == 0 and "[  PASSED  ] 1 test" in out
        found = report_findings(json_path)
        row["findings"] = None if found is None else len(found[0])
        ran_cuda = bool(found) and cuda_work_seen(found[1])
        row["fake_ok"] = passed and ran_cuda and not (found and found[0])
        if not passed:
            row["notes"].append("exit %s: %s" % (rc, tail(out + err)))
        if not ran_cuda:
            row["notes"].append("the report shows no work on a CUDA device")
        rc, out, err, secs = run([path, "--gtest_filter=" + test], cwd, o.timeout)
        row["cpu_passes"] = rc == 0
    return row


def check_cxx_suite(o):
    rows = []
    for binary in sorted(os.listdir(LIBTORCH_TEST)):
        path = os.path.join(LIBTORCH_TEST, binary)
        if binary in CXX_SUITE_SKIP or not os.access(path, os.X_OK) or os.path.isdir(path):
            continue
        with tempfile.TemporaryDirectory(prefix="fake-cuda-real-") as cwd:
            plain = run([path], cwd, o.timeout)
            fake = run([o.devcheck, "run", "--fake-cuda=2", "--", path], cwd, o.timeout)
        failed = re.findall(r"\[  FAILED  \] (\S+) \(", fake[1])
        rows.append(dict(binary=binary, plain_rc=plain[0], fake_rc=fake[0], fake_failed=failed,
                         same=plain[0] == fake[0]))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", help="libdevcheck_fake_device.so")
    parser.add_argument("--devcheck", help="the devcheck CLI (report checks, C++ programs)")
    parser.add_argument("--python", default=sys.executable, help="python3 with torch (default: this one)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per run (default 300)")
    parser.add_argument("--vision", default=VISION, help="torchvision 0.14.1 source tree (default: %(default)s)")
    parser.add_argument("--cxx-suite", action="store_true",
                        help="also run every libtorch-test binary plainly and under fake CUDA")
    parser.add_argument("--driver", help=argparse.SUPPRESS)
    parser.add_argument("--device", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("names", nargs="*", help="programs to run (default: all)")
    o = parser.parse_args()
    if o.driver:
        driver_main(o.driver, o.device, o.out)
        return 0
    if not o.lib and not o.devcheck:
        parser.error("give --lib (and --devcheck for the report checks and the C++ programs)")
    os.environ["DEVCHECK_VISION_TREE"] = os.path.abspath(o.vision)
    if o.lib:
        o.lib = os.path.abspath(o.lib)
    if o.devcheck:
        o.devcheck = os.path.abspath(o.devcheck)

    names = o.names or list(DRIVERS) + ["torch-collect-env"]
    if not os.path.isdir(o.vision):
        # scripts/fetch-lint-corpus.sh fetches it; without it only torch's own programs run
        print("real_programs: no torchvision tree at %s: its programs are skipped" % o.vision)
        names = [n for n in names if not n.startswith("vision-")]
    rows = []
    for name in names:
        rows.append(check_collect_env(o) if name == "torch-collect-env" else check_python(o, name))
    if o.devcheck and not o.names and os.path.isdir(LIBTORCH_TEST):
        for binary, test in CXX_CUDA_TESTS:
            rows.append(check_cxx(o, binary, test))
    suite = check_cxx_suite(o) if o.cxx_suite and o.devcheck else []

    print("%-50s %-8s %-9s %-9s %s" % ("program", "fake ok", "findings", "cpu-equal", "notes"))
    for r in rows:
        print("%-50s %-8s %-9s %-9s %s" % (r["program"][:50], {True: "yes", False: "NO"}[r["fake_ok"]],
                                           "-" if r.get("findings") is None else r["findings"],
                                           {True: "bitwise", False: "NO", None: "-"}[r.get("cpu_equal")],
                                           "; ".join(r["notes"])))
    if suite:
        same = [s for s in suite if s["same"]]
        print("libtorch-test suite: %d/%d binaries exit as they do without fake CUDA" % (len(same), len(suite)))
        for s in suite:
            if not s["same"]:
                print("    %s: plain exit %s, fake CUDA exit %s, failed: %s"
                      % (s["binary"], s["plain_rc"], s["fake_rc"], ", ".join(s["fake_failed"]) or "-"))
    for r in rows:
        r.pop("_results", None)
    if o.json:
        with open(o.json, "w", encoding="utf-8") as f:
            json.dump(dict(programs=rows, cxx_suite=suite), f, indent=2)
    bad = any(not r["fake_ok"] or r.get("cpu_equal") is False or
              any(n.startswith("false finding") for n in r["notes"]) for r in rows)
    bad = bad or any(not s["same"] for s in suite)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
