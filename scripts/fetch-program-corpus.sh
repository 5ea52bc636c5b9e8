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
cache=${1:-${DEVCHECK_LINT_CORPUS_DIR:-/var/cache/devcheck/lint-corpus}}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# source-package version tarball sha256
corpus=(
  "pytorch 1.13.1+dfsg-4 pytorch_1.13.1+dfsg.orig.tar.xz d0355588b8528566d477e6ebf1b4d9d036a6fd75711339f66b27472ce5879dc7"
)

apt_dir=$cache/.apt
apt_options=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Get::List-Cleanup=0")
source_index_ready=0

source_index() {  # a private apt configuration with deb-src for bookworm main
  [ "$source_index_ready" -eq 1 ] && return
  $sudo mkdir -p "$apt_dir/lists/partial" "$apt_dir/parts" "$apt_dir/cache/archives/partial"
  local mirror
  mirror=$(host_mirror | head -n 1)
  [ -n "$mirror" ] || { echo "fetch-program-corpus: no Debian mirror in apt's sources" >&2; exit 1; }
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" |
    $sudo tee "$apt_dir/sources.list" >/dev/null
  if ! ls "$apt_dir/lists/"*Sources* >/dev/null 2>&1; then
    $sudo apt-get "${apt_options[@]}" update -qq
  fi
  source_index_ready=1
}

for entry in "${corpus[@]}"; do
  read -r name version file sha256 <<<"$entry"
  dest=$cache/$name-$version
  [ -f "$dest/.complete" ] && continue
  source_index
  tmp=$(mktemp -d)
  # apt downloads as its sandbox user, which must be able to write here.
  if id _apt >/dev/null 2>&1; then $sudo chown _apt "$tmp"; fi
  (cd "$tmp" && $sudo apt-get "${apt_options[@]}" source --tar-only --download-only -qq \
    "${name}=${version}" >/dev/null)
  echo "$sha256  $tmp/$file" | sha256sum -c --quiet -
  $sudo rm -rf "$dest"
  $sudo mkdir -p "$dest"
  $sudo tar -xaf "$tmp/$file" -C "$dest" --strip-components=1
  $sudo touch "$dest/.complete"
  $sudo rm -rf "$tmp"
  echo "fetch-program-corpus: $name $version in $dest ($(find "$dest" -name '*.py' | wc -l) .py files)"
done
