#!/usr/bin/env bash
# Installs exactly the Debian packages devcheck needs that are missing.
# Idempotent and non-interactive; runs `apt-get update` at most once.
set -euo pipefail

packages=(
  build-essential cmake make ninja-build ccache pkg-config git
  libtorch-dev python3-torch libgloo-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  dataset-fashion-mnist libopenblas0-serial
  clang clang-format clang-tidy libclang-rt-14-dev
  lintian debootstrap groff-base
  pybind11-dev python3-dev python3-venv python3-pip python3-pytest python3-setuptools python3-wheel
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
