#!/usr/bin/env bash
# Data-parallel training of the Fashion-MNIST classifier, one thread
# per process, the same global batch and optimizer steps everywhere:
#   devcheck train --nproc 2        two ranks on Gloo (devcheck::DistributedDataParallel)
#   devcheck train                  one process: target two ranks >= 1.7x its samples/s
#   devcheck launch -n 2 -- python3 bench/ddp_train.py
#                                   Python DDP on Gloo: target devcheck >= 1.2x
# Rounds alternate the three (BENCH_ROUNDS, default 3); each ratio is taken
# within a round and the median over rounds is the result. Scaling needs two
# idle cores: the load average is printed before and after, and each round
# also runs two independent one-process trainings at once (no communication,
# each on one thread: --prefetch 0): their summed samples/s over one process is
# what this machine allows; then two such processes at the ranks' batch
# (batch / 2 each): the ranks' own work with no communication and no waiting,
# each step's fixed cost paid per rank as the ranks pay it. One process runs
# twice a round: its default (a prefetching thread, which has the second core
# to itself) and --prefetch 0 (one thread in all); the anchor is, in every
# round, the one of the two whose median over the rounds is higher (not the
# faster of the two within each round: the larger of two noisy runs would
# stand ~0.6 standard deviations above either configuration's own speed).
# The ranks, whose threads fill both cores, collate on their training threads
# (default_prefetch). Each JSON report records the prefetch depth it used.
# The ranks' report also says where their all-reduces' time went (the mean
# rank's gradient_wait_seconds and gradient_averaging_seconds): printed per
# round as shares of the training loop.
#
#   bash bench/ddp_compare.sh BUILD_DIR
#   BENCH_STEPS=1000 BENCH_ROUNDS=3 bash bench/ddp_compare.sh build
set -euo pipefail
build=${1:-build}
steps=${BENCH_STEPS:-600}
batch=${BENCH_BATCH:-64}
rounds=${BENCH_ROUNDS:-3}
python=${DEVCHECK_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

echo "ddp_compare: cpu, Gloo, 1 thread per process, global batch $batch, $steps steps," \
  "$rounds round(s), $(getconf _NPROCESSORS_ONLN) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  "$build/devcheck" train --device cpu --nproc 2 --threads 1 --batch-size "$batch" \
    --max-steps "$steps" --json --no-sanitize >"$work/two.$r.json"
  "$build/devcheck" train --device cpu --threads 1 --batch-size "$batch" \
    --max-steps "$steps" --json --no-sanitize >"$work/one.$r.json"
  "$build/devcheck" train --device cpu --threads 1 --batch-size "$batch" --prefetch 0 \
    --max-steps "$steps" --json --no-sanitize >"$work/one0.$r.json"
  "$build/devcheck" launch -n 2 -- "$python" "$here/ddp_train.py" --batch-size "$batch" \
    --max-steps "$steps" --threads 1 2>/dev/null | sed -n 's/^\[rank0\]: //p' >"$work/py.$r.json"
  for k in 1 2; do
    "$build/devcheck" train --device cpu --threads 1 --batch-size "$batch" --prefetch 0 \
      --max-steps "$steps" --json --no-sanitize >"$work/free$k.$r.json" &
  done
  wait
  for k in 1 2; do
    "$build/devcheck" train --device cpu --threads 1 --batch-size "$((batch / 2))" --prefetch 0 \
      --max-steps "$steps" --json --no-sanitize >"$work/half$k.$r.json" &
  done
  wait
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The communication floor: Gloo's own all-reduce of the classifier's gradients.
"$build/devcheck" launch -n 2 -- "$python" "$here/gloo_allreduce.py" 2>/dev/null |
  sed -n 's/^\[rank0\]: //p'

"$python" - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
scaling, vs_python, ceiling, of_ceiling, bound, of_bound, waiting = [], [], [], [], [], [], []
singles = {n: [json.load(open(f"{work}/{n}.{r}.json")) for r in range(1, rounds + 1)]
           for n in ("one", "one0")}
anchor = max(singles, key=lambda n: statistics.median(j["samples_per_second"] for j in singles[n]))
for n, runs in singles.items():
    speeds = ", ".join("%.0f" % j["samples_per_second"] for j in runs)
    mark = " (the anchor)" if n == anchor else ""
    print(f"one process, prefetch {runs[0]['prefetch']}: {speeds} samples/s{mark}")
for r in range(1, rounds + 1):
    two = json.load(open(f"{work}/two.{r}.json"))
    one = singles[anchor][r - 1]
    py = json.load(open(f"{work}/py.{r}.json"))
    assert two["world_size"] == 2 and py["world_size"] == 2, (two, py)
    t, o, p = two["samples_per_second"], one["samples_per_second"], py["samples_per_second"]
    print(f"round {r}: devcheck --nproc 2 {t:7.0f} samples/s (prefetch {two['prefetch']}) | "
          f"one process {o:7.0f} (prefetch {one['prefetch']}) | "
          f"python DDP (torch {py['torch']}) {p:7.0f}")
    free = sum(json.load(open(f"{work}/free{k}.{r}.json"))["samples_per_second"] for k in (1, 2))
    half = sum(json.load(open(f"{work}/half{k}.{r}.json"))["samples_per_second"] for k in (1, 2))
    print(f"         two independent processes at once {free:7.0f} samples/s in all; "
          f"at the ranks' batch {half:7.0f}")
    wait, averaging = (two.get(k, 0) / two["train_seconds"] for k in
                       ("gradient_wait_seconds", "gradient_averaging_seconds"))
    waiting.append(wait)
    print(f"         the ranks ({two['gradient_transport']}): {100 * wait:.1f}% of the loop "
          f"waiting for each other, {100 * averaging:.1f}% averaging gradients")
    scaling.append(t / o)
    ceiling.append(free / o)
    of_ceiling.append(t / free)
    bound.append(half / o)
    of_bound.append(t / half)
    vs_python.append(t / p)
s, v = statistics.median(scaling), statistics.median(vs_python)
ok_s, ok_v = s >= 1.7, v >= 1.2
print(f"this machine's ceiling: two independent processes / one = {statistics.median(ceiling):.2f}")
print(f"two ranks / two independent processes = {statistics.median(of_ceiling):.2f} "
      f"(rounds: {', '.join(f'{x:.2f}' for x in of_ceiling)}): the share of that ceiling reached")
print(f"two independent processes at the ranks' batch / one = {statistics.median(bound):.2f}: "
      f"the ranks' own work with no communication or waiting; two ranks / that = "
      f"{statistics.median(of_bound):.2f} (rounds: {', '.join(f'{x:.2f}' for x in of_bound)})")
print(f"the ranks waited for each other {100 * statistics.median(waiting):.1f}% of their loop "
      f"(median; a step goes at its slower rank's pace)")
print(f"two ranks / one process = {s:.2f} (rounds: {', '.join(f'{x:.2f}' for x in scaling)}; "
      f"target >= 1.70): {'PASS' if ok_s else 'FAIL'}")
print(f"devcheck / python DDP = {v:.2f} (rounds: {', '.join(f'{x:.2f}' for x in vs_python)}; "
      f"target >= 1.20): {'PASS' if ok_v else 'FAIL'}")
sys.exit(0 if ok_s and ok_v else 1)
PY
