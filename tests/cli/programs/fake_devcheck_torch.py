#!/usr/bin/python3
"""Stands in for libexec/devcheck/devcheck-torch (DEVCHECK_TORCH_HELPER) in
launch_test.cc: shows how the front `devcheck` ran it. Rank 0 (or a run with
no RANK) prints one JSON line on stdout; every process prints a line on stderr."""
import json
import os
import sys

rank = os.environ.get("RANK")
if rank in (None, "0"):
    print(json.dumps({"argv": sys.argv[1:], "rank": rank,
                      "world_size": os.environ.get("WORLD_SIZE")}))
print(f"helper process rank={rank}", file=sys.stderr)
