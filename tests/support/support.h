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

// Runs the Python script `script` with real PyTorch as `DEVCHECK_PYTHON
// script args...` would (stdout and stderr together), in a fork of one
// interpreter that imported torch once (tests/support/fork_server.py): torch's
// import costs 1.5-2.5 s, more than most checks. For scripts that read only
// their arguments and files: the environment is the one this process had when
// the server started. Runs it as its own process when the server cannot start.
ProcessResult run_torch_script(const std::string& script, const std::vector<std::string>& args);

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
