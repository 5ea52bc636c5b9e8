#!/usr/bin/env bash
# Upstream training programs that fake CUDA is tested on
# (tests/fake_cuda/real_programs.py, docs/fake-cuda-programs.md), fetched from
# Debian 12's registry into a cache outside the checkout; never checked in:
#   pytorch        PyTorch 1.13.1's upstream source (Debian's +dfsg tarball):
#                  functorch/examples, benchmarks/
# torchvision 0.14.1's source (references/) comes from fetch-lint-corpus.sh.
# The tarballs come through `apt-get source --tar-only` with a deb-src entry
# in a private apt configuration (the host's sources are not changed); apt
# checks each against Debian's signed indices, and this script against the
# SHA-256 pinned below. Idempotent: what is already unpacked is kept.
# The cache is the lint corpus's folder, which scripts/test-lane.sh mounts
# into the other lanes' roots at the same path.
#   bash scripts/fetch-program-corpus.sh [CACHE]   (default /var/cache/devcheck/lint-corpus)
set -euo pipefail
# shellcheck source=lib/host-mirror.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/host-mirror.sh"
# shellcheck source=lib/debian-source.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-source.sh"
cache=${1:-${DEVCHECK_LINT_CORPUS_DIR:-/var/cache/devcheck/lint-corpus}}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# source-package version tarball sha256
corpus=(
  "pytorch 1.13.1+dfsg-4 pytorch_1.13.1+dfsg.orig.tar.xz d0355588b8528566d477e6ebf1b4d9d036a6fd75711339f66b27472ce5879dc7"
)

debian_source_init "$cache" fetch-program-corpus

for entry in "${corpus[@]}"; do
  read -r name version file sha256 <<<"$entry"
  dest=$cache/$name-$version
  [ -f "$dest/.complete" ] && continue
  debian_source_fetch "$name" "$version" "$file" "$sha256" "$dest"
  echo "fetch-program-corpus: $name $version in $dest ($(find "$dest" -name '*.py' | wc -l) .py files)"
done
