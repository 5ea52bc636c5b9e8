// inspect() and remap() over the torch-free checkpoint library.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "devcheck/format/checkpoint.h"
#include "devcheck/format/device_name.h"

namespace py = pybind11;

namespace devcheck::python {

void bind_checkpoint(py::module_& m) {
  py::class_<format::Checkpoint>(m, "Checkpoint")
      .def_static("open", &format::Checkpoint::open, py::arg("path"))
      .def_property_readonly("path", &format::Checkpoint::path)
      .def("has_errors", &format::Checkpoint::has_errors)
      .def("to_text", [](const format::Checkpoint& c) { return c.to_text(); })
      .def("to_json", [](const format::Checkpoint& c) { return c.to_json(); });
  py::class_<RemapReport>(m, "RemapReport")
      .def_readonly("input", &RemapReport::input)
      .def_readonly("output", &RemapReport::output)
      .def_readonly("keys_renamed", &RemapReport::keys_renamed)
      .def_readonly("bytes_written", &RemapReport::bytes_written)
      .def("to_text", &RemapReport::to_text)
      .def("to_json", &RemapReport::to_json);
  m.def(
      "remap",
      [](const std::string& input, const std::string& output, const std::optional<std::string>& to,
         const std::vector<std::pair<std::string, std::string>>& rules,
         const std::string& strip_prefix, bool rewrite_code, bool force) {
        format::DeviceMap map =
            to ? format::DeviceMap::to(format::parse_device(*to)) : format::DeviceMap::keep();
        for (const auto& [from, dst] : rules) map.map(from, format::parse_device(dst));
        format::RemapOptions options;
        options.map_location(std::move(map))
            .strip_prefix(strip_prefix)
            .rewrite_code(rewrite_code)
            .force(force);
        py::gil_scoped_release release;
        return format::remap(input, output, options);
      },
      py::arg("input"), py::arg("output"), py::arg("to"), py::arg("rules"), py::arg("strip_prefix"),
      py::arg("rewrite_code"), py::arg("force"));
}

}  // namespace devcheck::python
