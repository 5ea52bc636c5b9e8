#pragma once
// The CLI's plumbing: each subcommand lives in its own file and registers
// itself; the CLI only parses and prints, the library does the work.
//
// Exit codes (documented in README and tested): 0 fine, 1 findings (unsafe or
// inconsistent content, mismatches found), 2 bad input or usage.

#include <CLI/CLI.hpp>

#include <functional>
#include <iosfwd>
#include <string>

namespace devcheck::cli {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;
constexpr int kExitBadInput = 2;

struct Streams {
  std::ostream& out;
  std::ostream& err;
};

// Runs after a successful parse; returns the exit code.
using Runner = std::function<int()>;
// Adds a subcommand's options to `sub` and returns what to run once parsed.
// `io` outlives the Runner.
using Setup = std::function<Runner(CLI::App& sub, Streams& io)>;

// Registers a subcommand at static-initialization time. `order` sorts --help.
struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string description, int order, Setup setup);
};

// The whole CLI, in-process: parses argv, runs one subcommand, maps errors to
// exit codes, and writes only to `out` and `err`.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace devcheck::cli
