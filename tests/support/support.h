#pragma once
// Helpers shared by every test binary: scratch folders, running real
// PyTorch (Debian's python3-torch) as a client, skipping CUDA-only tests.

#include <gtest/gtest.h>

#include "devcheck/device.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace devcheck::testing {

// A fresh folder under the build tree, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `argv` (no shell), capturing output. Environment: this process's plus `env` ("K=V").
ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env = {});

// Runs `code` with the python3 that has PyTorch (DEVCHECK_PYTHON).
ProcessResult run_python(const std::string& code, const std::vector<std::string>& args = {},
                         const std::vector<std::string>& env = {});

// Whether real PyTorch is importable (tests that need it fail loudly if not:
// install-deps.sh installs python3-torch, so absence is a broken setup).
bool python_torch_available();

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& bytes);

std::string source_dir();
// The built shared library of a part ("core", "sanitizer", ...: the
// devcheck::<part> targets). The test programs hold devcheck's objects
// themselves; tests about what the libraries hold read these files.
std::string shared_library(const std::string& part);
// Every part's built shared library: {part, path}.
std::vector<std::pair<std::string, std::string>> shared_libraries();
std::string binary_dir();

}  // namespace devcheck::testing

// Skips a *_CUDA test cleanly when no CUDA device is present.
#define DEVCHECK_REQUIRE_CUDA()                                     \
  do {                                                              \
    if (::devcheck::cuda_device_count() == 0) {                     \
      GTEST_SKIP() << "needs a CUDA device; this machine has none"; \
    }                                                               \
  } while (0)
