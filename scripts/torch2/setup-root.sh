#!/usr/bin/env bash
# Runs inside the fresh Debian 13 root (chroot), once: installs what devcheck
# builds and tests with. Non-interactive. Usage: setup-root.sh PACKAGE...
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

apt-get update -qq

# nvidia-cudnn is a downloader: its postinst fetches cuDNN from the vendor
# and fails offline, and libtorch-cuda-2.6 depends on it. An empty package of
# the same name and version satisfies the dependency; stub-cudnn.sh provides
# the library itself. The hold keeps apt from replacing it.
version=$(apt-cache policy nvidia-cudnn | awk '/Candidate:/ { print $2 }')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  echo "setup-root: no nvidia-cudnn candidate (are contrib and non-free enabled?)" >&2
  exit 1
fi
dir=$(mktemp -d)
mkdir -p "$dir/DEBIAN"
cat >"$dir/DEBIAN/control" <<CONTROL
Package: nvidia-cudnn
Version: $version
Architecture: amd64
Section: contrib/libs
Priority: optional
Maintainer: devcheck test root <root@localhost>
Description: stand-in for the cuDNN downloader (devcheck's test root)
 Installs nothing. The stand-in libcudnn.so.9 comes from devcheck's
 scripts/torch2/stub-cudnn.sh.
CONTROL
dpkg-deb --root-owner-group --build "$dir" /tmp/nvidia-cudnn-stand-in.deb >/dev/null
dpkg -i /tmp/nvidia-cudnn-stand-in.deb >/dev/null
apt-mark hold nvidia-cudnn >/dev/null
rm -rf "$dir" /tmp/nvidia-cudnn-stand-in.deb

# NVIDIA's license questions, answered for a non-interactive install.
debconf-set-selections <<'SEL'
nvidia-cudnn nvidia-cudnn/license note
nvidia-cudnn nvidia-cudnn/question select I Agree
SEL

apt-get install -y -qq --no-install-recommends "$@"
apt-get clean
