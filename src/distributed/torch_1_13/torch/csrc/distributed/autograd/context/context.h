#pragma once
// Debian's libtorch-dev 1.13 ships c10d's reducer.hpp but not the header it
// includes for distributed autograd (RPC), which LibTorch 2.x packages ship.
// reducer.hpp needs two names from it, both for members whose layout does not
// depend on the class (a shared_ptr and an atomic pointer) and that devcheck
// never touches: this header declares exactly those, as LibTorch 1.13 defines
// them. src/distributed/module.cmake puts it on the include path only when
// the real header is missing (see also src/detail/compat.h).

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch::distributed::autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace torch::distributed::autograd
