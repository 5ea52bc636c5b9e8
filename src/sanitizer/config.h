#pragma once
// The sanitizer's process configuration, in one place: what the
// DEVCHECK_SANITIZE* variables say and how they are read (the preload
// library's autostart) and written (`devcheck run`, for its children), and
// the configuration this process runs with.
//
// Every variable takes off/0/false/no and on/1/true/yes, in any case:
//   DEVCHECK_SANITIZE             off | on (= report) | report | warn | fail
//   DEVCHECK_SANITIZE_PROVENANCE  off | on            (default on)
//   DEVCHECK_SANITIZE_JSON        off | FILE          (default off)
//   DEVCHECK_SANITIZE_TRACE       off | FILE          (default off)
//   DEVCHECK_SANITIZE_REPORT_DIR  off | DIR  set by `devcheck run`: this process is its child
// An empty or unset variable is its default.

#include <functional>
#include <string>
#include <vector>

#include "devcheck/sanitizer.h"

namespace devcheck::sanitizer {

inline constexpr char kEnvSanitize[] = "DEVCHECK_SANITIZE";
inline constexpr char kEnvProvenance[] = "DEVCHECK_SANITIZE_PROVENANCE";
inline constexpr char kEnvJson[] = "DEVCHECK_SANITIZE_JSON";
inline constexpr char kEnvTrace[] = "DEVCHECK_SANITIZE_TRACE";
inline constexpr char kEnvReportDir[] = "DEVCHECK_SANITIZE_REPORT_DIR";

// Who decides the process's exit status and where the report goes.
enum class Role {
  kStandalone,  // on its own: the report goes to stderr/json/trace; kFail may set the status
  kRunChild,    // a child of `devcheck run`: report-<pid>.* in report_dir; the parent decides
};

struct ProcessConfig {
  bool enabled = false;      // DEVCHECK_SANITIZE is set and not off
  SanitizerOptions options;  // mode, provenance, json_path, trace_path
  Role role = Role::kStandalone;
  std::string report_dir;  // kRunChild only

  // Whether a kFail mismatch turns this process's exit status into 1.
  bool owns_exit_status() const { return role == Role::kStandalone; }
};

// Looks a variable up: nullptr when unset.
using EnvLookup = std::function<const char*(const char*)>;

// The configuration the variables describe. Throws InvalidArgumentError
// naming the variable, its value and the values it accepts.
ProcessConfig read_process_config(const EnvLookup& lookup);
// The same from this process's environment.
ProcessConfig read_process_config();

// "NAME=value" for each variable, so that a process with exactly these reads
// `config` back (what `devcheck run` gives its children).
std::vector<std::string> process_config_environment(const ProcessConfig& config);

// off/0/false/no -> false, on/1/true/yes -> true, in any case. Throws
// InvalidArgumentError naming `variable` and the accepted values.
bool parse_switch(const char* variable, const std::string& value);

// The configuration this process runs with: what autostart installed, or a
// disabled kStandalone one. Set once, by autostart, before any session of it
// starts; read by the exit path.
ProcessConfig process_config();
void set_process_config(const ProcessConfig& config);

}  // namespace devcheck::sanitizer
