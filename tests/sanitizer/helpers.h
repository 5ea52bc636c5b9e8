#pragma once
// Shared by the sanitizer tests: where the planted programs and scripts are,
// and the line a "// MARK:name" comment sits on.

#include <fstream>
#include <stdexcept>
#include <string>

#include "support/support.h"

namespace devcheck::testing {

inline std::string sanitizer_program(const std::string& name) {
  return binary_dir() + "/tests/devcheck_san_" + name;
}

inline std::string sanitizer_source(const std::string& relative) {
  return source_dir() + "/tests/sanitizer/" + relative;
}

// "planted.cc:27" for the line of `// MARK:stray` (or `# MARK:stray`) in `relative`.
inline int marked_line(const std::string& relative, const std::string& mark) {
  std::ifstream in(sanitizer_source(relative));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto at = line.find("MARK:" + mark);
    if (at != std::string::npos) {
      const auto end = at + 5 + mark.size();
      if (end == line.size() || line[end] == ' ') return n;
    }
  }
  throw std::runtime_error("no MARK:" + mark + " in " + relative);
}

inline std::string marked_site(const std::string& relative, const std::string& mark) {
  const auto slash = relative.rfind('/');
  return (slash == std::string::npos ? relative : relative.substr(slash + 1)) + ":" +
         std::to_string(marked_line(relative, mark));
}

}  // namespace devcheck::testing
