#!/usr/bin/env python3
"""Recall and flagged twins of a built `devcheck` on bug corpora, as LintBugCorpus counts them.

    python3 bench/lint_recall.py DEVCHECK DIR [DIR ...]

Each DIR holds cases `<rule>_<name>.bug.py` (bug lines marked `# <- bug`) and
`<rule>_<name>.fixed.py` (marked `# <- fixed`), as tests/lint/blind/README.md
describes. A bug is found when DEVCHECK's `lint --select RULE` reports on one
of its marked lines; a twin is flagged when it reports on one of the twin's.
Prints per DIR: cases, found, flagged, and the names missed and flagged. Lets
two builds (two commits' CLIs) be compared on the same corpus, e.g. a blind
draw written after the older one: the test binary holds only its own figures.
"""
import json
import os
import subprocess
import sys


def marked(path, mark):
    with open(path, encoding="utf-8") as f:
        return {i for i, line in enumerate(f, 1) if mark in line}


def reported(devcheck, path, rule, lines):
    out = subprocess.run([devcheck, "lint", "--select", rule, "--format", "json", path],
                         capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        sys.exit(f"lint_recall: {devcheck} lint {path}: {out.stderr.strip()}")
    return any(f["line"] in lines for f in json.loads(out.stdout))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    devcheck = sys.argv[1]
    for folder in sys.argv[2:]:
        names = sorted(n[:-len(".bug.py")] for n in os.listdir(folder) if n.endswith(".bug.py"))
        found, flagged, missed, twins = 0, 0, [], []
        for name in names:
            rule = "DC" + name[2:5]
            bug = os.path.join(folder, name + ".bug.py")
            fixed = os.path.join(folder, name + ".fixed.py")
            if reported(devcheck, bug, rule, marked(bug, "# <- bug")):
                found += 1
            else:
                missed.append(name)
            if reported(devcheck, fixed, rule, marked(fixed, "# <- fixed")):
                flagged += 1
                twins.append(name)
        print(f"{folder}: {len(names)} cases, {found} found, {flagged} twins flagged")
        for name in missed:
            print(f"  missed: {name}")
        for name in twins:
            print(f"  twin flagged: {name}")


if __name__ == "__main__":
    main()
