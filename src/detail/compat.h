#pragma once
// The one place where LibTorch 1.13 and 2.x differ for devcheck. Everything
// else compiles unchanged against both; keep each shim small and say which
// versions it spans.

#include <torch/version.h>

// True when the LibTorch being compiled against is at least MAJOR.MINOR.
#define DEVCHECK_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||           \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))
