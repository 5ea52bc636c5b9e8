#!/usr/bin/env bash
# The main job of `make run`: what devcheck does on this machine. Until the
# trainer exists this is `devcheck doctor`; later issues extend it.
set -euo pipefail
build=${1:-build}
"$build/devcheck" doctor
if [ -x "$build/devcheck" ] && "$build/devcheck" --help 2>/dev/null | grep -q '^ *train'; then
  "$build/devcheck" train --epochs 1 --out "$build/classifier.pt"
  if "$build/devcheck" --help | grep -q '^ *inspect'; then "$build/devcheck" inspect "$build/classifier.pt"; fi
fi
