#!/usr/bin/env python3
"""Draws a random sample of `devcheck lint` findings on public trees, to judge.

    python3 bench/lint_precision_sample.py BUILD_DIR [--seed N] [--size N]
        [--tree NAME=PATH ...] > sample.tsv

Lints each tree of TREES (or the trees given with --tree, in that order) (`--format json`, every rule), names each finding by
its tree and its path inside the tree, orders them all (tree as listed, then
path, line, column, rule), and draws SIZE of them with Python's
`random.seed(SEED); random.sample(findings, SIZE)`, printed in that order as
tab-separated rows: tree, path, line, column, rule, message, and two empty
columns for the verdict (true/false) and a one-line reason, to fill in by
reading the code. A tree that is missing is an error (the sample would be
another sample). The per-tree and per-rule totals go to stderr.
"""
import argparse
import json
import os
import random
import subprocess
import sys

SID = "/var/cache/devcheck/torch-latest-root/usr/lib/python3/dist-packages"
CORPUS = "/var/cache/devcheck/lint-corpus"
# (name, root): the trees of issue 38's precision target. torch is Debian 12's
# python3-torch (1.13); torchvision, torchaudio and skorch the public corpus
# of scripts/fetch-lint-corpus.sh; ignite 0.5.1 and accelerate 1.14.0, never
# sampled before, from the Debian sid root of the torch-latest lane.
TREES = [
    ("torch", "/usr/lib/python3/dist-packages/torch"),
    ("torchvision", CORPUS + "/pytorch-vision-0.14.1-2"),
    ("torchaudio", CORPUS + "/python3-torchaudio-0.13.1-1"),
    ("skorch", CORPUS + "/python3-skorch-0.12.1-2"),
    ("ignite", SID + "/ignite"),
    ("accelerate", SID + "/accelerate"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--size", type=int, default=100)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="a tree to lint instead of TREES (repeat; order kept)")
    args = parser.parse_args()
    trees = TREES
    if args.tree:
        trees = []
        for item in args.tree:
            name, sep, root = item.partition("=")
            if not sep or not name or not root:
                sys.exit(f"lint_precision_sample: --tree {item!r}: expected NAME=PATH")
            trees.append((name, root))
    devcheck = os.path.join(args.build, "devcheck")
    findings = []
    for name, root in trees:
        if not os.path.isdir(root):
            sys.exit(f"lint_precision_sample: no tree {root}")
        out = subprocess.run([devcheck, "lint", "-j", "1", "--format", "json", root],
                             capture_output=True, text=True, check=False)
        if out.returncode not in (0, 1):
            sys.exit(f"lint_precision_sample: devcheck lint {root}: {out.stderr}")
        tree = sorted((os.path.relpath(f["path"], root), f["line"], f["column"], f["rule"],
                       f["message"]) for f in json.loads(out.stdout))
        findings += [(name,) + f for f in tree]
        rules = {}
        for f in tree:
            rules[f[3]] = rules.get(f[3], 0) + 1
        print(f"{name}: {len(tree)} findings: " +
              ", ".join(f"{r} {n}" for r, n in sorted(rules.items(), key=lambda x: (-x[1], x[0]))),
              file=sys.stderr)
    random.seed(args.seed)
    sample = random.sample(findings, min(args.size, len(findings)))
    print(f"{len(findings)} findings, {len(sample)} drawn (seed {args.seed})", file=sys.stderr)
    print("tree\tpath\tline\tcolumn\trule\tmessage\tverdict\treason")
    for f in sample:
        print("\t".join(str(x) for x in f) + "\t\t")


if __name__ == "__main__":
    main()
