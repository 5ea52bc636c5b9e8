#pragma once
// What every rank tells the others about its module before DDP trusts it:
// each parameter's and buffer's name, shape, dtype and device, and the
// rank's own device. Compared on every rank, so every rank reaches the same
// verdict and throws the same message.

#include <torch/nn/module.h>

#include <string>
#include <vector>

#include "devcheck/distributed.h"

namespace devcheck::detail {

struct TensorFingerprint {
  std::string kind;  // "parameter" or "buffer"
  std::string name;
  std::string shape;   // "[10, 784]"
  std::string dtype;   // "float32"
  std::string device;  // "cuda:1"
};

struct ModuleFingerprint {
  int rank = 0;
  int local_rank = 0;
  std::string device;  // the rank's device
  std::vector<TensorFingerprint> tensors;

  // One line per field and tensor, tab-separated (names hold no tabs).
  std::string serialize() const;
  // Throws InvalidArgumentError for text serialize() did not write.
  static ModuleFingerprint parse(const std::string& text);
};

ModuleFingerprint fingerprint(const torch::nn::Module& module, const ProcessGroup& group);

// Throws DeviceMismatchError for the first tensor (by rank, then order) not
// on its rank's device, else InvalidArgumentError for the first difference
// between rank 0 and another rank in names, shapes or dtypes.
void check_fingerprints(const std::vector<ModuleFingerprint>& ranks);

}  // namespace devcheck::detail
