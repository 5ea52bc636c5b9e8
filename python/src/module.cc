// _devcheck: the Python faces of devcheck's C++ API (python/devcheck/ wraps
// them). Each binding calls the C++ function itself, so a Python user reads
// the same message a C++ user does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/utils/pybind.h>
#include <torch/nn/module.h>

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.h"
#include "devcheck/check.h"
#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/move.h"
#include "devcheck/scope.h"
#include "format/cuda_probe.h"

namespace py = pybind11;

namespace devcheck::python {
namespace {

// A C++ module tree that holds a Python module's parameters and buffers
// (the same tensors) under their qualified names, so audit() and
// module_device() run unchanged on it. The root takes the Python class name.
using Entry = std::tuple<std::string, at::Tensor, bool>;  // name, tensor, is_buffer

std::shared_ptr<torch::nn::Module> mirror(const std::string& name,
                                          const std::vector<Entry>& entries) {
  auto root = std::make_shared<torch::nn::Module>(name);
  for (const auto& [qualified, tensor, is_buffer] : entries) {
    if (!tensor.defined()) continue;
    torch::nn::Module* parent = root.get();
    std::string rest = qualified;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      const std::string child = rest.substr(0, dot);
      rest = rest.substr(dot + 1);
      auto* found = parent->named_children().find(child);
      parent =
          found != nullptr
              ? found->get()
              : parent->register_module(child, std::make_shared<torch::nn::Module>(child)).get();
    }
    if (is_buffer) {
      parent->register_buffer(rest, tensor);
    } else {
      // register_parameter sets requires_grad: keep the tensor's own.
      parent->register_parameter(rest, tensor, tensor.requires_grad());
    }
  }
  return root;
}

std::vector<NamedTensor> named(const std::vector<std::string>& names,
                               const std::vector<at::Tensor>& tensors) {
  std::vector<NamedTensor> out;
  out.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size() && i < names.size(); ++i) {
    out.emplace_back(names[i], tensors[i]);
  }
  return out;
}

// A DeviceScope entered and left from Python's `with`.
class PyDeviceScope {
 public:
  explicit PyDeviceScope(c10::Device device) : device_(device) {}
  void enter() { scope_ = std::make_unique<DeviceScope>(device_); }
  void exit() { scope_.reset(); }
  c10::Device device() const { return device_; }

 private:
  c10::Device device_;
  std::unique_ptr<DeviceScope> scope_;
};

}  // namespace

void bind_core(py::module_& m) {
  m.def(
      "select_device",
      [](const std::optional<std::string>& spec, const std::string& program_default) {
        const DeviceSpec parsed =
            spec ? DeviceSpec::parse(*spec) : DeviceSpec::from_env(program_default);
        Selection s = select_device(parsed);
        return py::make_tuple(s.device, s.reason);
      },
      py::arg("spec"), py::arg("program_default") = "auto");
  m.def(
      "check_same_device",
      [](const std::vector<std::string>& names, const std::vector<at::Tensor>& tensors,
         const std::string& what) { check_same_device(named(names, tensors), what); },
      py::arg("names"), py::arg("tensors"), py::arg("what"));
  m.def(
      "check_on",
      [](c10::Device expected, const std::vector<std::string>& names,
         const std::vector<at::Tensor>& tensors,
         const std::string& what) { check_on(expected, named(names, tensors), what); },
      py::arg("expected"), py::arg("names"), py::arg("tensors"), py::arg("what"));
  m.def(
      "module_device",
      [](const std::string& name, const std::vector<Entry>& entries) {
        return module_device(*mirror(name, entries));
      },
      py::arg("name"), py::arg("entries"));
  m.def(
      "audit",
      [](const std::string& name, const std::vector<Entry>& entries,
         std::optional<c10::Device> expected) {
        PlacementReport r = audit(*mirror(name, entries), expected);
        py::list misplaced;
        for (const auto& e : r.misplaced) {
          misplaced.append(
              py::make_tuple(e.name, e.is_buffer, e.device.str(), e.dtype, e.shape, e.nbytes));
        }
        std::optional<std::string> exp;
        if (r.expected) exp = r.expected->str();
        return py::make_tuple(r.ok(), exp, misplaced, r.to_text(), r.to_json());
      },
      py::arg("name"), py::arg("entries"), py::arg("expected") = std::nullopt);
  m.def(
      "to_device",
      [](const at::Tensor& t, c10::Device device, bool non_blocking) {
        return to_device(t, device, non_blocking);
      },
      py::arg("tensor"), py::arg("device"), py::arg("non_blocking") = false);
  m.def("default_device", &default_device);
  // What fake CUDA would hide: the driver's own devices (never LibTorch's view).
  m.def("real_cuda_devices", [] {
    std::vector<std::string> names;
    for (const auto& d : detail::probe_cuda().devices) names.push_back(d.name);
    return names;
  });
  m.def("in_device_scope", &in_device_scope);
  py::class_<PyDeviceScope>(m, "DeviceScope")
      .def(py::init<c10::Device>())
      .def("enter", &PyDeviceScope::enter)
      .def("exit", &PyDeviceScope::exit)
      .def_property_readonly("device", &PyDeviceScope::device);
}

}  // namespace devcheck::python

PYBIND11_MODULE(_devcheck, m) {
  m.doc() = "devcheck's C++ API for Python (use the devcheck package, not this module)";
  devcheck::python::bind_errors(m);
  devcheck::python::bind_core(m);
  devcheck::python::bind_sanitizer(m);
  devcheck::python::bind_checkpoint(m);
  m.attr("TORCH_VERSION") = TORCH_VERSION_STRING;
}
