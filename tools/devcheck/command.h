#pragma once
// The CLI's plumbing: each subcommand lives in its own file and registers
// itself; the CLI only parses and prints, the library does the work.
//
// Exit codes (documented in README and tested): 0 fine, 1 findings (unsafe or
// inconsistent content, mismatches found), 2 bad input or usage.

#include <CLI/CLI.hpp>

#include <exception>
#include <functional>
#include <iosfwd>
#include <string>

#include "devcheck/error_code.h"

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

// A command run by another program (forward.cc): gets the whole command
// line and returns the exit code.
using Forward = std::function<int(int argc, const char* const* argv, Streams& io)>;

// Registers a forwarded command: listed in --help like any other, and handed
// the command line as it is (its own program parses it).
struct ForwardRegistrar {
  ForwardRegistrar(std::string name, std::string description, int order, Forward forward);
};

// Reports an exception that this program's core does not know (LibTorch's,
// in the programs that link it): writes the message to `err` and returns the
// exit code, or returns -1 when `error` is not of its kind.
using ErrorReporter = int (*)(const std::exception_ptr& error, std::ostream& err);
struct ErrorReporterRegistrar {
  explicit ErrorReporterRegistrar(ErrorReporter reporter);
};

// The exit code of an error of category `code`: kUnsafe and kDeviceMismatch
// are findings (1), everything else bad input (2).
int exit_code_for(ErrorCode code);

// A library message in the CLI's words: the library names its options in API
// terms (RemapOptions::force, TrainOptions::epochs); the user typed flags.
std::string in_cli_terms(std::string message);

// The whole CLI, in-process: parses argv, runs one subcommand, maps errors to
// exit codes, and writes only to `out` and `err`.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace devcheck::cli
