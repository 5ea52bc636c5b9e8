// devcheck's C++ errors as Python exceptions: DevcheckError (a RuntimeError)
// and one subclass per category, raised with the C++ message.
#include <pybind11/pybind11.h>

#include <exception>

#include "bindings.h"
#include "devcheck/error.h"
#include "devcheck/format/error.h"

namespace py = pybind11;

namespace devcheck::python {

void bind_errors(py::module_& m) {
  // Created once per interpreter; translators below hold plain pointers.
  static PyObject* base = nullptr;
  static PyObject* mismatch = nullptr;
  static PyObject* unavailable = nullptr;
  static PyObject* invalid = nullptr;
  static PyObject* format = nullptr;
  static PyObject* unsafe = nullptr;
  static PyObject* io = nullptr;
  auto make = [&m](const char* name, PyObject* parent, PyObject* second = nullptr) {
    const std::string qualified = std::string("devcheck.") + name;
    PyObject* bases = second != nullptr ? PyTuple_Pack(2, parent, second) : PyTuple_Pack(1, parent);
    PyObject* type = PyErr_NewException(qualified.c_str(), bases, nullptr);
    Py_DECREF(bases);
    if (type == nullptr) throw py::error_already_set();
    m.attr(name) = py::handle(type);
    return type;
  };
  base = make("DevcheckError", PyExc_RuntimeError);
  mismatch = make("DeviceMismatchError", base);
  unavailable = make("DeviceUnavailableError", base);
  invalid = make("InvalidArgumentError", base, PyExc_ValueError);
  format = make("FormatError", base);
  unsafe = make("UnsafeContentError", base);
  io = make("DevcheckIOError", base, PyExc_OSError);

  static PyObject* by_code[] = {invalid, mismatch, unavailable, format, unsafe, io};
  static_assert(sizeof(by_code) / sizeof(by_code[0]) == static_cast<int>(ErrorCode::kIo) + 1,
                "one Python type per ErrorCode, in its order");
  // pybind11::ExceptionTranslator takes the exception_ptr by value.
  py::register_local_exception_translator(
      [](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
        auto type_of = [](ErrorCode code) {
          const auto i = static_cast<std::size_t>(code);
          return i < sizeof(by_code) / sizeof(by_code[0]) ? by_code[i] : base;
        };
        try {
          if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
          PyErr_SetString(type_of(e.code()), e.message().c_str());
        } catch (const format::Error& e) {
          PyErr_SetString(type_of(e.code()), e.what());
        }
      });
}

}  // namespace devcheck::python
