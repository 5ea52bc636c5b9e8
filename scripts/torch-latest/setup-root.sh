#!/usr/bin/env bash
# Runs inside the fresh Debian sid root (chroot), once: installs what devcheck
# builds and tests with. Non-interactive. Usage: setup-root.sh PACKAGE...
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$@"
apt-get clean
