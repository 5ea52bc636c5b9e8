#!/usr/bin/env bash
# The devcheck program against `true` and `cp` on one ~256 MB checkpoint of
# 200 tensors saved "on cuda:0" by real PyTorch:
#   bash bench/cli_compare.sh BUILD_DIR
# Prints wall time and peak RSS of `devcheck inspect` and of
# `devcheck remap --to cpu`, each against its anchor from the same run, page
# cache warm and cold, with the machine's conditions.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$build/devcheck" ]; then
  echo "cli_compare: no devcheck program in $build; build the devcheck_cli target first" >&2
  exit 2
fi
# CLI_BASELINE=path/to/other/devcheck: a program of another commit beside.
exec /usr/bin/python3 "$here/cli_compare.py" "$build/devcheck" ${CLI_BASELINE:+"$CLI_BASELINE"}
