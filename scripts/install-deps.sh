#!/usr/bin/env bash
# Installs exactly the Debian packages devcheck needs that are missing.
# Idempotent and non-interactive; runs `apt-get update` at most once.
set -euo pipefail

packages=(
  build-essential cmake make ninja-build ccache pkg-config git
  libtorch-dev libtorch-test python3-torch libgloo-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  dataset-fashion-mnist libopenblas0-serial
  clang clang-format clang-tidy libclang-rt-14-dev
  lintian debootstrap groff-base
  pybind11-dev python3-dev python3-venv python3-pip python3-pytest python3-setuptools python3-wheel
  libmimalloc-dev python3-flake8 python3-pyflakes python3-jsonschema
  neovim python3-pylsp jupyter-nbconvert python3-ipykernel
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# devcheck lint's tree-sitter runtime (MIT), compiled into the program with
# three changes (src/lint/runtime_patch.cmake), never checked in: Debian 12's
# tree-sitter 0.20.7 source, the release libtree-sitter-dev is built from.
# Its upstream tarball (lib/ and the licence kept) from the pool of the host's
# Debian mirror through apt's own downloader, checked against the SHA-256 in
# the source package's signed .dsc (tree-sitter_0.20.7-1.dsc), into a cache
# outside the checkout (CMake: DEVCHECK_TREE_SITTER_DIR).
# shellcheck source=lib/host-mirror.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/host-mirror.sh"
rt_version=0.20.7
rt_file=tree-sitter_$rt_version.orig.tar.xz
rt_sha256=e8c0573be475dce5b024d83628a3eb47376923da701376e55a11804cc5d25487
rt_dir=${DEVCHECK_TREE_SITTER_DIR:-/var/cache/devcheck/tree-sitter-$rt_version}
if [ ! -f "$rt_dir/lib/src/lib.c" ]; then
  mirror=$(host_mirror | head -n 1)
  [ -n "$mirror" ] || { echo "install-deps: no Debian mirror in apt's sources for $rt_file" >&2; exit 1; }
  rt_tmp=$(mktemp -d)
  # apt downloads as its sandbox user, which must be able to write here.
  if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$rt_tmp"; fi
  /usr/lib/apt/apt-helper download-file "${mirror%/}/pool/main/t/tree-sitter/$rt_file" \
    "$rt_tmp/$rt_file" "SHA256:$rt_sha256" >/dev/null
  $sudo mkdir -p "$rt_dir"
  $sudo tar -xJf "$rt_tmp/$rt_file" -C "$rt_dir" --strip-components=1 \
    "tree-sitter-$rt_version/lib" "tree-sitter-$rt_version/LICENSE"
  rm -rf "$rt_tmp"
  echo "install-deps: tree-sitter $rt_version's runtime source in $rt_dir"
fi

# devcheck lint's Python grammar (MIT), compiled into the program, never
# checked in: npm's tree-sitter-python 0.23.6, the last release whose
# src/parser.c is LANGUAGE_VERSION 14 (the tree-sitter 0.20.7 runtime reads
# 13-14).
# Fetched with the ordinary npm client into a cache outside the checkout
# (CMake: DEVCHECK_TREE_SITTER_PYTHON_DIR), its sha1 checked.
ts_version=0.23.6
ts_sha1=807e50c415a761c613614f902432f563e85b51b6
ts_dir=${DEVCHECK_TREE_SITTER_PYTHON_DIR:-/var/cache/devcheck/tree-sitter-python-$ts_version}
if [ ! -f "$ts_dir/src/parser.c" ]; then
  ts_tmp=$(mktemp -d)
  (cd "$ts_tmp" && npm pack --silent "tree-sitter-python@$ts_version" >/dev/null)
  echo "$ts_sha1  $ts_tmp/tree-sitter-python-$ts_version.tgz" | sha1sum -c --quiet -
  $sudo mkdir -p "$ts_dir"
  $sudo tar -xzf "$ts_tmp/tree-sitter-python-$ts_version.tgz" -C "$ts_dir" --strip-components=1
  rm -rf "$ts_tmp"
  echo "install-deps: tree-sitter-python $ts_version in $ts_dir"
fi

# ruff's WebAssembly build (MIT), the second anchor of bench/lint_compare.sh
# (not needed to build or test): npm's @astral-sh/ruff-wasm-nodejs, fetched
# with the ordinary npm client into a cache outside the checkout, its sha1
# checked (bench: DEVCHECK_RUFF_WASM_DIR).
ruff_version=0.17.4
ruff_sha1=3919c9e5c1fe8415ed334b7d07f229b800aa6206
ruff_dir=${DEVCHECK_RUFF_WASM_DIR:-/var/cache/devcheck/ruff-wasm-nodejs-$ruff_version}
if [ ! -f "$ruff_dir/ruff_wasm.js" ]; then
  ruff_tmp=$(mktemp -d)
  if (cd "$ruff_tmp" && npm pack --silent "@astral-sh/ruff-wasm-nodejs@$ruff_version" >/dev/null) &&
    echo "$ruff_sha1  $ruff_tmp/astral-sh-ruff-wasm-nodejs-$ruff_version.tgz" | sha1sum -c --quiet -; then
    $sudo mkdir -p "$ruff_dir"
    $sudo tar -xzf "$ruff_tmp/astral-sh-ruff-wasm-nodejs-$ruff_version.tgz" -C "$ruff_dir" --strip-components=1
    echo "install-deps: ruff-wasm $ruff_version in $ruff_dir"
  else
    echo "install-deps: ruff-wasm $ruff_version could not be fetched; bench/lint_compare.sh skips ruff"
  fi
  rm -rf "$ruff_tmp"
fi

# The SARIF 2.1.0 schema, which tests/lint validates `devcheck lint --format
# sarif` against: the copy in npm's @microsoft/jest-sarif (MIT), sha1 checked.
sarif_pkg=@microsoft/jest-sarif@1.0.0-beta.0
sarif_sha1=bf817c5931635bd90274c4eb20aad7db1ac17601
sarif_dir=/var/cache/devcheck/sarif-2.1.0
if [ ! -f "$sarif_dir/sarif-2.1.0.json" ]; then
  sarif_tmp=$(mktemp -d)
  (cd "$sarif_tmp" && npm pack --silent "$sarif_pkg" >/dev/null)
  echo "$sarif_sha1  $sarif_tmp/microsoft-jest-sarif-1.0.0-beta.0.tgz" | sha1sum -c --quiet -
  $sudo mkdir -p "$sarif_dir"
  tar -xzf "$sarif_tmp/microsoft-jest-sarif-1.0.0-beta.0.tgz" -C "$sarif_tmp" package/lib/schemas/sarif-2.1.0-rtm.5.json
  $sudo cp "$sarif_tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$sarif_dir/sarif-2.1.0.json"
  rm -rf "$sarif_tmp"
  echo "install-deps: the SARIF 2.1.0 schema in $sarif_dir"
fi

# devcheck lint's public corpus (torchvision's source, skorch, torchaudio from
# Debian's registry) for the lint.PublicCorpus tests; see the script. Not
# needed to build: without it those tests skip.
bash "$(dirname "${BASH_SOURCE[0]}")/fetch-lint-corpus.sh" ||
  echo "install-deps: the lint corpus could not be fetched; the lint.PublicCorpus tests will skip"
# PyTorch 1.13.1's source (functorch examples, benchmarks) for
# fake_cuda.UpstreamProgramsRunCleanWithTheCpusResults, in the same cache.
bash "$(dirname "${BASH_SOURCE[0]}")/fetch-program-corpus.sh" ||
  echo "install-deps: PyTorch's source could not be fetched; fake_cuda.UpstreamPrograms will fail"
