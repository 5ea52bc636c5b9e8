#!/usr/bin/env bash
# Run on the Debian machine before a GPU session: copies what the GPU machine
# (torch 2.x, CMake, no network, no Debian -dev packages) lacks into
# build-gpu-deps/ (ignored by git; pass it to the device tool's `carry`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-gpu-deps
rm -rf "$out"
mkdir -p "$out/include"
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt "$out/include/"
cp /usr/include/zlib.h /usr/include/zconf.h "$out/include/" 2>/dev/null \
  || cp /usr/include/x86_64-linux-gnu/zconf.h "$out/include/"
cp -r /usr/src/googletest "$out/googletest"
du -sh "$out"
