// Which torch a program runs, read from files alone: shared by the preload
// library (which links nothing but libc, so this is header-only and uses no
// LibTorch) and by run_sanitized(), which looks at a Python's torch before
// the program starts. Neither imports torch nor runs Python code.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>

namespace devcheck::sanitizer {

// "2.6.0+cu124" -> "2.6": what must match for libdevcheck to run on a LibTorch.
inline std::string major_minor(const std::string& version) {
  const auto first = version.find('.');
  if (first == std::string::npos) return version;
  const auto second = version.find_first_not_of("0123456789", first + 1);
  return version.substr(0, second);
}

// The quoted string assigned to `name` at the start of a line of the Python
// file `path` (`__version__ = '2.6.0'`, `cuda: Optional[str] = '12.4'`).
// "" when the file, the name or a quoted value (None) is missing.
inline std::string python_string_assignment(const std::string& path, const char* name) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  const std::size_t n = std::strlen(name);
  char line[512];
  std::string value;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, name, n) != 0 || std::strchr(" \t:=", line[n]) == nullptr) continue;
    const char* eq = std::strchr(line + n, '=');
    const char* quote = eq != nullptr ? std::strpbrk(eq, "'\"") : nullptr;
    const char* end = quote != nullptr ? std::strchr(quote + 1, *quote) : nullptr;
    if (end != nullptr) value.assign(quote + 1, end);
    break;
  }
  std::fclose(f);
  return value;
}

// The version of the Python torch package in the folder `torch_dir`
// (".../site-packages/torch"), from its version.py. "" when it does not say.
inline std::string torch_package_version(const std::string& torch_dir) {
  return python_string_assignment(torch_dir + "/version.py", "__version__");
}

// The version of the LibTorch at `path`: its soname's ("libtorch_cpu.so.2.6",
// Debian's), else torch/version.py beside a wheel's torch/lib/libtorch_cpu.so.
// "" when neither says.
inline std::string torch_version_at(const std::string& path) {
  const auto at = path.rfind("libtorch_cpu.so");
  if (at == std::string::npos) return "";
  const std::string suffix = path.substr(at + std::strlen("libtorch_cpu.so"));
  if (suffix.size() > 1 && suffix[0] == '.') return suffix.substr(1);
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string lib = path.substr(0, slash);  // .../torch/lib
  return torch_package_version(lib.substr(0, lib.rfind('/')));
}

}  // namespace devcheck::sanitizer
