#pragma once
// Turns raw return addresses into file:line, only when a report needs them.
// Uses dladdr for the module and addr2line (binutils) for lines, one
// addr2line per module kept running for the process's later reports; frames in
// LibTorch, the C++ runtime, Python and devcheck itself are not the user's.

#include <string>
#include <vector>

#include "sanitizer/stack.h"

namespace devcheck::sanitizer {

struct Frame {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  int line = 0;
  std::string module;  // the shared object or program
  bool user = false;   // in the user's code (not LibTorch, runtime, Python, devcheck)
};

// Each pc expanded into its inline chain, innermost first. Cached; thread-safe.
std::vector<Frame> symbolize(const std::vector<void*>& pcs);

// A site as a report shows it.
struct SiteText {
  std::string location;            // "train.cc:41" / "prog.py:9 (main)"; "" when unknown
  std::vector<std::string> stack;  // "function at file:line", innermost user frames first
};
SiteText describe_site(SiteId id);

// Whether a source file belongs to LibTorch, the C++ library or devcheck's headers.
bool is_library_source(const std::string& file);
// Whether a module (shared object path) is LibTorch, a runtime library, Python or devcheck.
bool is_library_module(const std::string& module);

}  // namespace devcheck::sanitizer
