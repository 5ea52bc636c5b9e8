#pragma once
// The user's Python file:line for an op, when a Python interpreter runs in
// this process. No compile-time Python dependency: the C API is looked up
// with dlsym in the already-loaded interpreter.
//
// The GIL: the watch runs with the GIL released (PyTorch's
// bindings release it around every op). python_location() takes it with
// PyGILState_Ensure only on threads that already have a Python thread state,
// never while holding a devcheck lock, and only for the rare events that need
// a site (factories, transfers, syncs, findings) -- never from allocator code.

#include <string>

namespace devcheck::sanitizer {

// True when the Python C API is present in this process.
bool python_present();

// "prog.py:12 (main)": the innermost frame outside torch's own package and
// devcheck's own Python files on this thread (the user's code); "" when this thread runs no Python
// code, Python is absent or finalizing.
std::string python_location();

// Whether `filename` belongs to PyTorch's own Python package or to devcheck's
// (its package, fake CUDA's and the fake device's helpers, its
// sitecustomize): frames python_location() skips.
bool is_library_python_file(const std::string& filename);

}  // namespace devcheck::sanitizer
