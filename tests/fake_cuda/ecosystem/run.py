"""Today's ecosystem under fake CUDA: torchvision, pytorch-ignite, accelerate
and skorch programs (this folder), each run on the plain CPU and under
`devcheck run --fake-cuda --mode fail`, unmodified. Each must run, say it
trained on cuda:0, have no finding in devcheck's report, and print the CPU
run's results (losses, metrics, parameter digests: bitwise).

    run.py --devcheck build/devcheck [--python /usr/bin/python3] [names...]

KNOWN_FALSE lists the findings known to be false, with the issue that
removes them; any other finding fails the run.

Exit status 0: every program whose library is installed passed; 1: one did
not; 77 (ctest's skip): none of the four libraries is installed (the lanes of
torch 1.13 and 2.6 ship none of them). A lane that has some but not all of
them fails, naming what is missing: the torch-latest lane installs all four.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Findings known to be false, each with the open issue that removes it: the
# run still fails on any other finding, and on one of these that changed or
# went away (then this table is out of date). None today: the two "many small
# copies" of torchvision_resnet (Module.to of a ResNet-18, a loop copying each
# tensor of its state dict once) went with issue 40's flood rule.
KNOWN_FALSE = {}
PROGRAMS = {  # program -> the module it needs
    "torchvision_resnet": "torchvision",
    "ignite_trainer": "ignite",
    "accelerate_loop": "accelerate",
    "skorch_classifier": "skorch",
}


def importable(python, module):
    return subprocess.run([python, "-c", "import " + module], capture_output=True).returncode == 0


def last_json(stdout):
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return None


def run_one(o, name, tmp):
    path = os.path.join(HERE, name + ".py")
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    problems = []
    cpu = subprocess.run([o.python, path, "cpu"], capture_output=True, text=True, env=env,
                         timeout=o.timeout)
    if cpu.returncode != 0:
        return ["the CPU run failed (exit %d):\n%s" % (cpu.returncode, cpu.stderr[-3000:])]
    report = os.path.join(tmp, name + ".json")
    fake = subprocess.run([o.devcheck, "run", "--fake-cuda", "--mode", "fail", "--json", report, "--",
                           o.python, path, "cuda"], capture_output=True, text=True, env=env,
                          timeout=o.timeout)
    if fake.returncode != 0:
        return ["the fake-CUDA run failed (exit %d):\n%s" % (fake.returncode, fake.stderr[-3000:])]
    with open(report) as f:
        findings = [x for p in json.load(f).get("processes", []) for x in p.get("findings", [])]
    known = list(KNOWN_FALSE.get(name, []))
    for finding in findings:
        first = finding.get("message", "").splitlines()[0]
        match = next((k for k in known if all(part in first for part in k[:3])), None)
        if match is None:
            problems.append("false finding: " + first)
        else:
            known.remove(match)
            print("       known false finding (%s): %s" % (match[3], first))
    for k in known:
        problems.append("the known false finding %r (%s) is gone: update KNOWN_FALSE" % (k[:3], k[3]))
    want, got = last_json(cpu.stdout), last_json(fake.stdout)
    if want is None or got is None:
        return problems + ["no result line (CPU: %r, fake CUDA: %r)" % (cpu.stdout[-500:], fake.stdout[-500:])]
    if not got.get("device", "").startswith("cuda"):
        problems.append("trained on %s, not on fake CUDA's cuda:0" % got.get("device"))
    if want.get("device") != "cpu":
        problems.append("the CPU run trained on %s" % want.get("device"))
    for key in sorted(set(want) | set(got)):
        if key != "device" and want.get(key) != got.get(key):
            problems.append("%s differs: CPU %r, fake CUDA %r" % (key, want.get(key), got.get(key)))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--devcheck", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("names", nargs="*")
    o = parser.parse_args()
    names = o.names or list(PROGRAMS)
    have = {n: importable(o.python, PROGRAMS[n]) for n in names}
    if not any(have.values()):
        print("ecosystem: none of %s is installed for %s; skipped" %
              (", ".join(PROGRAMS[n] for n in names), o.python))
        return 77
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if not have[name]:
                print("FAILED %s: %s is not installed (the lane has the others)" % (name, PROGRAMS[name]))
                failed += 1
                continue
            problems = run_one(o, name, tmp)
            print(("ok     %s" % name) if not problems else ("FAILED %s:\n  %s" % (name, "\n  ".join(problems))))
            failed += bool(problems)
    print("ecosystem: %d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
