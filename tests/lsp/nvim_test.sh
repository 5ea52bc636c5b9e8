#!/usr/bin/env bash
# ctest's lsp.NeovimReceivesDiagnosticsAndAppliesTheFix: Debian's neovim,
# headless, with its built-in LSP client on `devcheck lsp` (nvim_client.lua)
# opens a file with a stray CPU tensor and a deprecated GradScaler. The
# transcript must show both diagnostics (code, line, message, link, the
# related line), the fix applied to the buffer, and the disable comment.
#   nvim_test.sh DEVCHECK_CLI
set -euo pipefail
cli=$1
command -v nvim >/dev/null || { echo "nvim_test: no nvim (scripts/install-deps.sh installs neovim)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/train.py" <<'PY'
import torch
x = torch.randn(4, device="cuda")
h = torch.zeros(4)
y = x + h
scaler = torch.cuda.amp.GradScaler()
PY
status=0
HOME=$work XDG_CONFIG_HOME=$work XDG_DATA_HOME=$work XDG_STATE_HOME=$work \
  DEVCHECK_CLI=$cli DEVCHECK_NVIM_FILE=$work/train.py DEVCHECK_NVIM_OUT=$work/transcript \
  timeout 60 nvim --headless --clean -n -u NONE -c "luafile $here/nvim_client.lua" || status=$?
cat "$work/transcript" 2>/dev/null || true
[ "$status" -eq 0 ] || { echo "nvim_test: nvim exited with status $status"; exit 1; }
expect() {
  grep -qF -- "$1" "$work/transcript" || { echo "nvim_test: the transcript lacks: $1"; exit 1; }
}
expect "received: 2 diagnostics"
expect "  DC101 line 3 col 5 severity 2: torch.zeros(...) without device= makes a tensor on the CPU, and line 4"
expect "    link https://github.com/devcheck/devcheck/blob/main/docs/lint.md#dc101"
expect "    related line 4: line 4: y = x + h"
expect "  DC109 line 5 col 10 severity 2: "
expect "line 5 now: scaler = torch.amp.GradScaler(\"cuda\")"
expect "after the fix: 1 diagnostics"
expect "line 3 now: h = torch.zeros(4)  # devcheck: ignore[DC101]"
expect "after disabling: 0 diagnostics"
echo "nvim_test: ok"
