#pragma once
// Checkpoint fixtures made by real PyTorch (make_fixtures.py), once per build
// tree and version of the maker: every test process (ctest runs each TEST in
// its own) shares them, under a file lock.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/support.h"

namespace devcheck::testing {

inline std::filesystem::path checkpoint_fixtures() {
  static const std::filesystem::path dir = [] {
    const std::string script = source_dir() + "/tests/checkpoint/make_fixtures.py";
    const std::size_t hash = std::hash<std::string>{}(read_file(script));
    const auto root = std::filesystem::path(binary_dir()) / "test-fixtures";
    const auto out = root / ("checkpoint-" + std::to_string(hash));
    std::filesystem::create_directories(root);
    const int lock = ::open((root / "checkpoint.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    ::flock(lock, LOCK_EX);
    if (!std::filesystem::exists(out / "DONE")) {
      std::filesystem::remove_all(out);
      std::filesystem::create_directories(out);
      const ProcessResult r = run_process({DEVCHECK_PYTHON, script, out.string()});
      if (r.exit_code != 0) {
        ::close(lock);
        throw std::runtime_error("make_fixtures.py failed:\n" + r.output);
      }
      write_file(out / "DONE", "");
    }
    ::close(lock);
    return out;
  }();
  return dir;
}

// The path of fixture `name` ("cpu_state_dict.pt").
inline std::string fixture(const std::string& name) {
  return (checkpoint_fixtures() / name).string();
}

// The file a malicious fixture would create if anything ran its pickle.
inline std::filesystem::path pwned_marker() { return checkpoint_fixtures() / "pwned-marker"; }

// Runs tests/checkpoint/torch_check.py with real PyTorch (run_torch_script).
inline ProcessResult torch_check(const std::vector<std::string>& args) {
  return run_torch_script(source_dir() + "/tests/checkpoint/torch_check.py", args);
}

// torch_check.py weights-only: `path` uses only what torch.load(weights_only=True)
// accepts in PyTorch 1.13 and 2.6 (op by op), and this PyTorch loads it so;
// given the `original` it was remapped from (and the key `prefix` stripped),
// it adds nothing to it and loads equal to it.
inline void expect_weights_only_loads(const std::string& path, const std::string& original = "",
                                      const std::string& prefix = "") {
  std::vector<std::string> args{"weights-only", path};
  if (!original.empty()) args.push_back(original);
  if (!prefix.empty()) args.push_back(prefix);
  const ProcessResult r = torch_check(args);
  EXPECT_EQ(r.exit_code, 0) << path << ":\n" << r.output;
  EXPECT_NE(r.output.find("OK"), std::string::npos) << r.output;
}

}  // namespace devcheck::testing
