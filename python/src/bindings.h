#pragma once
// The parts of the _devcheck extension module, one function per file.
#include <pybind11/pybind11.h>

#include <torch/version.h>

#define DEVCHECK_STR2(x) #x
#define DEVCHECK_STR(x) DEVCHECK_STR2(x)
/// The LibTorch version this module was compiled against ("1.13.0").
#define TORCH_VERSION_STRING        \
  DEVCHECK_STR(TORCH_VERSION_MAJOR) \
  "." DEVCHECK_STR(TORCH_VERSION_MINOR) "." DEVCHECK_STR(TORCH_VERSION_PATCH)

namespace devcheck::python {

/// DevcheckError and its subclasses (DeviceMismatchError, ...), and the
/// translation of devcheck's C++ errors into them.
void bind_errors(pybind11::module_& m);
/// select_device, check_same_device, check_on, module_device, audit, to_device, DeviceScope.
void bind_core(pybind11::module_& m);
/// Sanitizer and SanitizerReport.
void bind_sanitizer(pybind11::module_& m);
/// inspect and remap over the torch-free checkpoint library.
void bind_checkpoint(pybind11::module_& m);

}  // namespace devcheck::python
