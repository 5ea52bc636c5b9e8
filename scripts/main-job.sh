#!/usr/bin/env bash
# The main job of `make run`: what devcheck does on this machine. Until the
# trainer exists this is `devcheck doctor`; later issues extend it.
set -euo pipefail
build=${1:-build}
"$build/devcheck" doctor
# The help text is read whole before grep looks at it: `devcheck --help |
# grep -q` under pipefail fails when grep stops early and devcheck, still
# writing, dies of SIGPIPE.
help=$("$build/devcheck" --help 2>/dev/null || true)
if grep -q '^ *train' <<<"$help"; then
  "$build/devcheck" train --epochs 1 --out "$build/classifier.pt"
  if grep -q '^ *inspect' <<<"$help"; then "$build/devcheck" inspect "$build/classifier.pt"; fi
fi
