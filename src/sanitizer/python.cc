#include "sanitizer/python.h"

#include <dlfcn.h>

namespace devcheck::sanitizer {
namespace {

using PyObj = void;

struct PythonApi {
  int (*is_initialized)() = nullptr;
  int (*is_finalizing)() = nullptr;
  PyObj* (*this_thread_state)() = nullptr;
  int (*gil_check)() = nullptr;
  int (*gil_ensure)() = nullptr;  // PyGILState_STATE is an int-sized enum
  void (*gil_release)(int) = nullptr;
  PyObj* (*current_frame)() = nullptr;
  int (*frame_line)(PyObj*) = nullptr;
  PyObj* (*frame_code)(PyObj*) = nullptr;
  PyObj* (*frame_back)(PyObj*) = nullptr;
  PyObj* (*get_attr)(PyObj*, const char*) = nullptr;
  const char* (*as_utf8)(PyObj*) = nullptr;
  void (*dec_ref)(PyObj*) = nullptr;
  void (*err_clear)() = nullptr;
  bool ok = false;

  template <typename F>
  static void load(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
  }

  PythonApi() {
    load(is_initialized, "Py_IsInitialized");
    load(is_finalizing, "Py_IsFinalizing");  // 3.13+
    if (is_finalizing == nullptr) load(is_finalizing, "_Py_IsFinalizing");
    load(this_thread_state, "PyGILState_GetThisThreadState");
    load(gil_check, "PyGILState_Check");
    load(gil_ensure, "PyGILState_Ensure");
    load(gil_release, "PyGILState_Release");
    load(current_frame, "PyEval_GetFrame");
    load(frame_line, "PyFrame_GetLineNumber");
    load(frame_code, "PyFrame_GetCode");  // 3.9+
    load(frame_back, "PyFrame_GetBack");  // 3.9+
    load(get_attr, "PyObject_GetAttrString");
    load(as_utf8, "PyUnicode_AsUTF8");
    load(dec_ref, "Py_DecRef");
    load(err_clear, "PyErr_Clear");
    ok = is_initialized && this_thread_state && gil_check && gil_ensure && gil_release &&
         current_frame && frame_line && frame_code && frame_back && get_attr && as_utf8 &&
         dec_ref && err_clear;
  }
};

// Looked up once; Python cannot be unloaded from a running process.
const PythonApi& api() {
  static const PythonApi instance;
  return instance;
}

std::string attr_string(const PythonApi& py, PyObj* object, const char* name) {
  PyObj* value = py.get_attr(object, name);
  if (value == nullptr) {
    py.err_clear();
    return {};
  }
  const char* text = py.as_utf8(value);
  std::string result = text != nullptr ? text : "";
  if (text == nullptr) py.err_clear();
  py.dec_ref(value);
  return result;
}

// Walks this thread's Python frames. Requires the GIL.
std::string innermost_user_frame(const PythonApi& py) {
  PyObj* frame = py.current_frame();  // borrowed
  PyObj* owned = nullptr;             // the frame we hold a reference to, if any
  std::string result;
  for (int i = 0; frame != nullptr && i < 128; ++i) {
    PyObj* code = py.frame_code(frame);
    if (code != nullptr) {
      const std::string file = attr_string(py, code, "co_filename");
      if (!file.empty() && !is_library_python_file(file)) {
        const std::string function = attr_string(py, code, "co_name");
        result = file + ":" + std::to_string(py.frame_line(frame));
        if (!function.empty()) result += " (" + function + ")";
      }
      py.dec_ref(code);
    }
    if (!result.empty()) break;
    PyObj* back = py.frame_back(frame);  // new reference
    if (owned != nullptr) py.dec_ref(owned);
    owned = back;
    frame = back;
  }
  if (owned != nullptr) py.dec_ref(owned);
  return result;
}

}  // namespace

bool python_present() { return api().ok; }

bool is_library_python_file(const std::string& filename) {
  auto has = [&](const char* part) { return filename.find(part) != std::string::npos; };
  auto ends_with = [&](const std::string& tail) {
    return filename.size() >= tail.size() &&
           filename.compare(filename.size() - tail.size(), tail.size(), tail) == 0;
  };
  return filename.rfind("<frozen", 0) == 0 || has("-packages/torch/") ||
         // devcheck's package (installed, or its source tree's python/devcheck)
         has("-packages/devcheck/") || has("/python/devcheck/") ||
         // the helpers `devcheck run` loads (share/devcheck/python, or python/ in the source tree)
         has("/share/devcheck/python/") || has("/devcheck_fake_cuda/") ||
         ends_with("/devcheck_fake.py");
}

std::string python_location() {
  const PythonApi& py = api();
  if (!py.ok || py.is_initialized() == 0) return {};
  if (py.is_finalizing != nullptr && py.is_finalizing() != 0) return {};
  // Threads without a Python thread state (autograd workers, intra-op pools)
  // run no Python code: never create a thread state for them.
  if (py.this_thread_state() == nullptr) return {};
  const bool held = py.gil_check() != 0;
  int state = 0;
  if (!held) state = py.gil_ensure();
  std::string result = innermost_user_frame(py);
  if (!held) py.gil_release(state);
  return result;
}

}  // namespace devcheck::sanitizer
