#pragma once
// Runs a helper program and reads what it prints: addr2line for the report's
// lines, the target Python for what it would import (see python_run.h).
#include <string>
#include <vector>

namespace devcheck::sanitizer {

struct Captured {
  bool started = false;  // false when the program could not be started
  int status = 0;        // its wait status (waitpid's)
  std::string out;       // what it wrote on stdout; its stderr goes to /dev/null
};

// argv/envp for posix_spawn and exec: pointers into `strings`, then nullptr.
// Valid while `strings` lives unchanged.
std::vector<char*> c_string_array(const std::vector<std::string>& strings);

// Runs `argv` (argv[0] searched on PATH) with the environment `env`
// ("NAME=value" each) and waits for it. Thread-safe.
Captured run_capturing_stdout(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env);

// This process's environment without LD_PRELOAD: a helper must not get the
// preload library (it would only slow it down) nor start a sanitizer.
std::vector<std::string> environment_without_preload();

}  // namespace devcheck::sanitizer
