#!/usr/bin/env bash
# Public PyTorch code that `devcheck lint` is tested on (the lint.PublicCorpus
# tests in tests/lint/module.cmake), fetched from Debian 12's registry into a
# cache outside the checkout; never checked in:
#   pytorch-vision  torchvision 0.14.1's upstream source: references/ holds its
#                   training scripts (classification, detection, segmentation,
#                   video, optical flow, similarity), plus the library and tests
#   python3-skorch  skorch 0.12.1, a training library (its fit loop moves
#                   batches to the device)
#   python3-torchaudio  torchaudio 0.13.1: models, pipelines, prototypes
# The source tarball comes through `apt-get source --tar-only` with a deb-src
# entry in a private apt configuration (the host's sources are not changed);
# the two binary packages through `apt-get download`. apt checks each file
# against Debian's signed indices, and this script against the SHA-256 pinned
# below. Idempotent: what is already unpacked is kept.
#   bash scripts/fetch-lint-corpus.sh [CACHE]   (default /var/cache/devcheck/lint-corpus)
set -euo pipefail
# shellcheck source=lib/host-mirror.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/host-mirror.sh"
# shellcheck source=lib/debian-source.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian-source.sh"
cache=${1:-${DEVCHECK_LINT_CORPUS_DIR:-/var/cache/devcheck/lint-corpus}}
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# name version file sha256 kind (source: an upstream tarball; deb: a binary package)
corpus=(
  "pytorch-vision 0.14.1-2 pytorch-vision_0.14.1.orig.tar.gz ced67e1cf1f97e168cdf271851a4d0b6d382ab7936e7bcbb39aaa87239c324b6 source"
  "python3-skorch 0.12.1-2 python3-skorch_0.12.1-2_all.deb 7b6c4b33dc7e09b458cbbae836d1961e228bb114603b61cdb00a31977cb0c854 deb"
  "python3-torchaudio 0.13.1-1 python3-torchaudio_0.13.1-1_amd64.deb 924bcedd7cb4c768c8819a505fa9e9fa7d4cb29e82ae70ea4ba39df1f08a4cea deb"
)

debian_source_init "$cache" fetch-lint-corpus

for entry in "${corpus[@]}"; do
  read -r name version file sha256 kind <<<"$entry"
  dest=$cache/$name-$version
  [ -f "$dest/.complete" ] && continue
  debian_source_fetch "$name" "$version" "$file" "$sha256" "$dest" "$kind"
  echo "fetch-lint-corpus: $name $version in $dest ($(find "$dest" -name '*.py' | wc -l) .py files)"
done
