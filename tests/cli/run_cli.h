#pragma once
// Runs the devcheck CLI in-process and captures what it prints.

#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "support/support.h"

namespace devcheck::cli {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline CliResult run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"devcheck"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  CliResult r;
  r.exit_code = run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace devcheck::cli
