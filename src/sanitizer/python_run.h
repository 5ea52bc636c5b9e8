#pragma once
// `devcheck run -- python3 ...`: how a Python program is watched, decided
// before it starts. The preload library watches a Python whose torch is the
// LibTorch devcheck was built for; a Python with the devcheck package built
// for its own torch is watched in-process through the package (`python -m
// devcheck run`); any other Python with torch is refused before it runs.
#include <string>
#include <vector>

#include "devcheck/sanitizer.h"

namespace devcheck::sanitizer {

// A Python command line, split as the interpreter reads it:
// PYTHON [OPTIONS] script.py ARGS, or PYTHON [OPTIONS] -m MODULE ARGS.
struct PythonCommand {
  std::vector<std::string> interpreter;  // the program and its options (-u, -X dev, ...)
  std::string script;                    // "" with -m or when there is none
  std::string module;                    // the -m module, else ""
  std::vector<std::string> args;         // the program's own arguments
  // A script or -m module after options the package's runner keeps as they
  // are; false for -c, -i, stdin ("-" or no script) and options it does not know.
  bool runnable = false;
};

// Whether `program` (a name or a path) names a Python interpreter:
// "python", "python3", "python3.11", ".../venv/bin/python".
bool is_python_interpreter(const std::string& program);

// Splits a command whose program is a Python interpreter.
PythonCommand parse_python_command(const std::vector<std::string>& command);

// What a Python would import, found without importing torch (importlib's
// find_spec) and read from files (torch/version.py, devcheck/_build_info.py).
struct PythonTorch {
  bool probed = false;         // the interpreter ran and answered
  std::string executable;      // its sys.executable
  std::string torch_dir;       // ".../site-packages/torch"; "" without torch
  std::string torch_version;   // "2.6.0+cu124"
  std::string torch_cuda;      // "12.4"; "" for a CPU build
  std::string package_dir;     // the devcheck package it imports; "" when none
  std::string package_torch;   // the torch that package was built for ("" when not built)
  std::string package_cuda;    // and its CUDA ("" for none)
  std::string package_source;  // the checkout it was built from
  bool package_fits() const;   // the package was built for exactly this torch
};

// Runs `interpreter` (with its options) once with `env`: a few tens of
// milliseconds, no torch import. probed is false when it cannot run.
PythonTorch probe_python(const std::vector<std::string>& interpreter,
                         const std::vector<std::string>& env);

// How run_sanitized() runs a Python command.
struct PythonRunPlan {
  bool through_package = false;   // else the preload library, as for any program
  std::vector<std::string> argv;  // with through_package: PYTHON -m devcheck run ... script ARGS
  std::string notice;             // with through_package: the line that says so
};

// The plan for `command` (any command; not a Python one gets the preload).
// `report_dir`: where the package writes report-<pid>.* for run_sanitized().
// Throws InvalidArgumentError, before anything runs, for a Python whose torch
// is not the LibTorch devcheck was built for and that has no devcheck package
// for its torch (naming both versions and the pip command that installs it),
// or whose command line the package cannot run.
// `fake_cuda`/`fake_cuda_force`: the package's runner turns fake CUDA on
// (--fake-cuda N, --fake-cuda-force).
PythonRunPlan plan_python_run(const std::vector<std::string>& command,
                              const std::vector<std::string>& env, const SanitizerOptions& options,
                              const std::string& report_dir, int fake_cuda = 0,
                              bool fake_cuda_force = false);

// The folder with devcheck's Python helpers for programs run by the preload
// library (the devcheck_fake_cuda package, site/sitecustomize.py): $DEVCHECK_PYTHON_DIR,
// else share/devcheck/python of the installed tree or of the build tree,
// found from libdevcheck_sanitizer's own path. Empty when there is none.
std::string python_helpers_dir();

}  // namespace devcheck::sanitizer
