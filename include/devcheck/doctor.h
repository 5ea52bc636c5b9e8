#pragma once
/// What LibTorch and the machine offer: the facts `devcheck doctor` prints.

#include <string>
#include <vector>

#include "devcheck/device.h"
#include "devcheck/export.h"

namespace devcheck {

/// LibTorch build facts, devices and the choice "auto" would make. Value type.
struct DEVCHECK_API EnvironmentReport {
  std::string torch_version;        ///< LibTorch's version, "1.13.0".
  std::string devcheck_version;     ///< devcheck's version.
  bool cuda_built = false;          ///< LibTorch in this process has CUDA (libtorch_cuda loaded).
  std::string cuda_version;         ///< CUDA it was built with, "12.4"; empty without.
  std::string cuda_note;            ///< Why no CUDA device is usable, else empty.
  int fake_cuda = 0;                ///< How many CUDA devices are devcheck's fake CUDA; 0: none.
  bool cudnn = false;               ///< cuDNN available.
  long cudnn_version = 0;           ///< NOLINT(google-runtime-int): LibTorch's type; 0 when absent.
  int threads = 0;                  ///< Intra-op threads (at::get_num_threads()).
  int interop_threads = 0;          ///< Inter-op threads.
  std::vector<DeviceInfo> devices;  ///< cpu first, then each visible CUDA device.
  Selection auto_choice;            ///< What select_device("auto") picks here, and why.
  std::string env_device;           ///< $DEVCHECK_DEVICE, empty when unset.

  /// Human-readable, one fact a line.
  std::string to_text() const;
  /// The same facts as a JSON object.
  std::string to_json() const;
};

/// Gathers the report now. Never throws for a missing GPU or driver (that is a fact to report).
DEVCHECK_API EnvironmentReport environment_report();

}  // namespace devcheck
