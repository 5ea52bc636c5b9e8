"""devcheck inspect / remap as processes, against `true` and `cp`; and the
torch-free program's start-up against a bare process.

Usage: python3 cli_compare.py PATH/TO/devcheck [PATH/TO/other/devcheck]
(the second, a program built from another commit, joins the start-up part)

Makes (once, cached in $TMPDIR) a ~256 MB torch.save checkpoint of 200
float32 tensors whose storages are tagged "cuda:0" (no GPU needed), then times
each command as a child process under GNU time: wall clock from spawn to
exit (time's own start included, for the anchors too), peak RSS as time
reports it (its child forks from time, not from this Python process, whose
pages would otherwise count). Each command runs REPEAT times per condition; the median
is printed. "cold" drops the checkpoint's pages from the page cache
(posix_fadvise DONTNEED) before every run; "warm" reads it first.

Start-up: `true`, `devcheck --version` and `devcheck inspect` of the
checkpoint (page cache warm), each spawned directly by this process (no time
wrapper), STARTS rounds, one run of each per round in turn (so that drift
hits all three alike); medians, and the difference to `true` measured in the
same run (target: at most 1 ms over it). Also what each loads (ldd) and the
page faults of one run.
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPEAT = 7
STARTS = int(os.environ.get("CLI_STARTS", "301"))
TENSORS = 200
ELEMENTS = 320 * 1000  # float32: 1.28 MB each, 256 MB in all

devcheck = os.path.abspath(sys.argv[1])
baseline = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
work = os.path.join(tempfile.gettempdir(), "devcheck-cli-bench")
os.makedirs(work, exist_ok=True)
source = os.path.join(work, "cuda0_256mb.pt")
output = os.path.join(work, "out.pt")
copy = os.path.join(work, "copy.pt")
rss_file = os.path.join(work, "rss.txt")

MAKE = r"""
import sys, torch
class tagged:
    def __enter__(self):
        self.elem = (-100, lambda storage: "cuda:0", lambda obj, location: None)
        torch.serialization._package_registry.append(self.elem)
        torch.serialization._package_registry.sort(key=lambda e: e[0])
    def __exit__(self, *exc):
        torch.serialization._package_registry.remove(self.elem)
g = torch.Generator().manual_seed(0)
state = {f"layer{i}.weight": torch.randn(%d, generator=g) for i in range(%d)}
with tagged():
    torch.save(state, sys.argv[1])
""" % (ELEMENTS, TENSORS)

if not os.path.exists(source):
    subprocess.run(["/usr/bin/python3", "-c", MAKE, source + ".tmp"], check=True)
    os.replace(source + ".tmp", source)


def drop_cache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def run_once(argv, cold):
    for p in (output, copy):
        if os.path.exists(p):
            os.remove(p)
    if cold:
        drop_cache(source)
    else:
        warm(source)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv,
                          stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"cli_compare: {' '.join(argv)} failed ({done.returncode})")
    with open(rss_file) as f:
        return wall, int(f.read().split()[-1])  # seconds, KiB


def measure(argv, cold):
    runs = [run_once(argv, cold) for _ in range(REPEAT)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


true = shutil.which("true")
cp = shutil.which("cp")
# The same inspect in the helper program, which links LibTorch: what every
# command cost when the CLI was one LibTorch program.
helper = os.path.join(os.path.dirname(devcheck), "libexec", "devcheck", "devcheck-torch")
commands = {
    "true": [true],
    "devcheck inspect": [devcheck, "inspect", source],
    "devcheck-torch inspect": [helper, "inspect", source],
    "cp": [cp, source, copy],
    "devcheck remap --to cpu": [devcheck, "remap", source, "-o", output, "--to", "cpu"],
}

def startup():
    """Spawn-to-exit times of true, devcheck --version and devcheck inspect."""
    warm(source)
    runs = {"true": [true], "devcheck --version": [devcheck, "--version"],
            "devcheck inspect (warm)": [devcheck, "inspect", source]}
    if baseline:
        runs["other --version"] = [baseline, "--version"]
        runs["other inspect (warm)"] = [baseline, "inspect", source]
    times = {name: [] for name in runs}
    for _ in range(STARTS):
        for name, argv in runs.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    load_now = os.getloadavg()[0]
    libs = subprocess.run(["ldd", devcheck], capture_output=True, text=True).stdout.split("\n")
    libs = [line.split()[0] for line in libs if line.strip() and "vdso" not in line]
    faults = {}
    for name, argv in runs.items():
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        faults[name] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before
    base = statistics.median(times["true"])
    print(f"\nstart-up (spawn to exit from this process, page cache warm, median of {STARTS} "
          f"interleaved rounds; load average {load_now:.2f} after):")
    for name, xs in times.items():
        m = statistics.median(xs)
        over = "" if name == "true" else f"  +{(m - base) * 1000:.2f} ms over true ({m / base:.2f}x)"
        print(f"  {name:<26} {m * 1000:8.2f} ms  {faults[name]:4d} page faults{over}")
    version = statistics.median(times["devcheck --version"])
    print(f"  devcheck loads: {', '.join(libs)}")
    if baseline:
        print(f"  other: {baseline}")
    print(f"  --version over true: {(version - base) * 1000:.2f} ms (target <= 1 ms)")


load1, load5, _ = os.getloadavg()
size = os.path.getsize(source)
print(f"file: {source}: {size / 2**20:.1f} MiB, {TENSORS} tensors saved on cuda:0")
print(f"conditions: {os.cpu_count()} CPUs, devcheck single-threaded, load average "
      f"{load1:.2f} (1 min) {load5:.2f} (5 min), median of {REPEAT} runs, output on the same "
      f"file system ({work})")
for cold in (False, True):
    label = "cold" if cold else "warm"
    print(f"\npage cache {label} (input {'dropped with posix_fadvise' if cold else 'read first'}):")
    results = {name: measure(argv, cold) for name, argv in commands.items()}
    for name, (wall, rss) in results.items():
        print(f"  {name:<26} {wall * 1000:8.1f} ms  peak RSS {rss / 1024:6.1f} MiB")
    inspect_wall, inspect_rss = results["devcheck inspect"]
    remap_wall, _ = results["devcheck remap --to cpu"]
    cp_wall, _ = results["cp"]
    true_wall, _ = results["true"]
    torch_wall, torch_rss = results["devcheck-torch inspect"]
    print(f"  inspect: {inspect_wall * 1000:.1f} ms ({inspect_wall / true_wall:.1f}x `true`; "
          f"target <= 20 ms), {inspect_rss / 1024:.1f} MiB (target <= 20 MiB); with LibTorch "
          f"loaded {torch_wall / inspect_wall:.0f}x the time, {torch_rss / inspect_rss:.0f}x "
          f"the memory")
    print(f"  remap --to cpu / cp: {remap_wall / cp_wall:.2f}x (target <= 1.5x, process start "
          f"included)")
startup()
for p in (output, copy):
    if os.path.exists(p):
        os.remove(p)
