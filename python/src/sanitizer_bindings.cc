// The sanitizer in-process: devcheck.watch() holds a Sanitizer while its
// block runs and keeps the SanitizerReport it took at the end.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "devcheck/sanitizer.h"

namespace py = pybind11;

namespace devcheck::python {
namespace {

// A Sanitizer started by start() and ended by stop(), which returns what it saw.
class PySanitizer {
 public:
  PySanitizer(const std::string& mode, bool provenance, bool trace, bool print_summary) {
    options_.mode(parse_sanitizer_mode(mode))
        .provenance(provenance)
        .trace(trace)
        .print_summary(print_summary);
  }
  void start() {
    py::gil_scoped_release release;  // the sanitizer's start-up may wait on other threads
    sanitizer_ = std::make_unique<Sanitizer>(options_);
  }
  SanitizerReport report() const {
    if (!sanitizer_) return last_;
    return sanitizer_->report();
  }
  // What a later report() holds starts here; origins are kept.
  void clear_findings() {
    if (sanitizer_) sanitizer_->clear_findings();
  }
  SanitizerReport stop() {
    if (!sanitizer_) return last_;
    last_ = sanitizer_->report();
    sanitizer_.reset();
    return last_;
  }

 private:
  SanitizerOptions options_;
  std::unique_ptr<Sanitizer> sanitizer_;
  SanitizerReport last_;
};

}  // namespace

void bind_sanitizer(py::module_& m) {
  py::class_<SanitizerArgument>(m, "SanitizerArgument")
      .def_readonly("name", &SanitizerArgument::name)
      .def_property_readonly("device", [](const SanitizerArgument& a) { return a.device.str(); })
      .def_readonly("dtype", &SanitizerArgument::dtype)
      .def_readonly("shape", &SanitizerArgument::shape)
      .def_readonly("stray", &SanitizerArgument::stray)
      .def_readonly("origin_op", &SanitizerArgument::origin_op)
      .def_readonly("origin", &SanitizerArgument::origin)
      .def_readonly("derived_from_op", &SanitizerArgument::derived_from_op)
      .def_readonly("derived_from", &SanitizerArgument::derived_from);
  py::class_<SanitizerFinding>(m, "SanitizerFinding")
      .def_property_readonly("kind",
                             [](const SanitizerFinding& f) {
                               return f.kind == FindingKind::kDeviceMismatch ? "device_mismatch"
                                                                             : "small_copies";
                             })
      .def_readonly("op", &SanitizerFinding::op)
      .def_readonly("site", &SanitizerFinding::site)
      .def_readonly("stack", &SanitizerFinding::stack)
      .def_readonly("count", &SanitizerFinding::count)
      .def_readonly("arguments", &SanitizerFinding::arguments)
      .def_property_readonly("expected", [](const SanitizerFinding& f) { return f.expected.str(); })
      .def_readonly("direction", &SanitizerFinding::direction)
      .def_readonly("bytes", &SanitizerFinding::bytes)
      .def_readonly("message", &SanitizerFinding::message)
      .def_readonly("fix", &SanitizerFinding::fix)
      .def("__repr__", [](const SanitizerFinding& f) { return f.message; });
  py::class_<TransferStat>(m, "TransferStat")
      .def_readonly("op", &TransferStat::op)
      .def_readonly("direction", &TransferStat::direction)
      .def_readonly("site", &TransferStat::site)
      .def_readonly("count", &TransferStat::count)
      .def_readonly("bytes", &TransferStat::bytes)
      .def_readonly("synchronizing", &TransferStat::synchronizing);
  py::class_<SyncStat>(m, "SyncStat")
      .def_readonly("op", &SyncStat::op)
      .def_readonly("site", &SyncStat::site)
      .def_readonly("device", &SyncStat::device)
      .def_readonly("count", &SyncStat::count);
  py::class_<SanitizerReport>(m, "SanitizerReport")
      .def_readonly("findings", &SanitizerReport::findings)
      .def_readonly("transfers", &SanitizerReport::transfers)
      .def_readonly("syncs", &SanitizerReport::syncs)
      .def_readonly("ops_checked", &SanitizerReport::ops_checked)
      .def("ok", &SanitizerReport::ok)
      .def("mismatch_count", &SanitizerReport::mismatch_count)
      .def("to_text", &SanitizerReport::to_text)
      .def("to_json", &SanitizerReport::to_json)
      .def("write_trace", &SanitizerReport::write_trace, py::arg("path"));
  py::class_<PySanitizer>(m, "Sanitizer")
      .def(py::init<const std::string&, bool, bool, bool>(), py::arg("mode"), py::arg("provenance"),
           py::arg("trace"), py::arg("print_summary"))
      .def("start", &PySanitizer::start)
      .def("report", &PySanitizer::report)
      .def("clear_findings", &PySanitizer::clear_findings)
      .def("stop", &PySanitizer::stop);
  m.def("sanitizer_active", &Sanitizer::active);
}

}  // namespace devcheck::python
