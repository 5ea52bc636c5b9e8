#pragma once
// The process-wide sanitizer that DEVCHECK_SANITIZE and the preload library
// install, and the hooks that write its report at exit, on std::terminate and
// on fatal signals.

#include <signal.h>

#include <string>

#include "devcheck/export.h"

namespace devcheck::sanitizer {

// The one fail-mode exit path: at exit, a mismatch a kFail session recorded
// makes the exit status 1, unless the process is a child of `devcheck run`
// (process_config().owns_exit_status(); the parent decides). Arming twice
// arms once. It runs after the report hook (registered later, run first).
void arm_fail_exit();

// Installs the sanitizer from the environment (read_process_config()) when
// DEVCHECK_SANITIZE is on and none is active, and records the configuration
// as the process's. Returns true when one was installed. Never throws: a
// malformed variable is reported on stderr (naming it and the accepted
// values) and the process runs unwatched. Called by the preload library,
// never at load time.
bool autostart_from_env();

// Writes the process sanitizer's report (once); `reason` says why ("exit",
// "std::terminate", "signal SIGSEGV"). For tests and the hooks.
void finish_process_report(const std::string& reason);

// report-<pid>.json / .txt / .trace.json in `dir`, as `devcheck run` reads them.
std::string report_file(const std::string& dir, long pid, const char* suffix);

}  // namespace devcheck::sanitizer

// C entry points for foreign callers (the preload library finds the first
// with dlsym; Python's ctypes can use the others, as bench/ does).
extern "C" {
// Installs the sanitizer from DEVCHECK_SANITIZE*; 1 when it did.
DEVCHECK_API int devcheck_sanitizer_autostart();
// The preload library's sigaction() asks this first. For a fatal signal the
// sanitizer's handler holds, `act` becomes the action it hands the signal on
// to and `old` gets the one before; returns 1 (done, nothing else to do).
// Returns 0 for any other signal: the caller does the real sigaction.
// Async-signal-safe.
DEVCHECK_API int devcheck_sanitizer_sigaction(int sig, const struct sigaction* act,
                                              struct sigaction* old);
// Takes back each fatal signal the sanitizer held and another library then
// installed its handler for past sigaction() interposers (UCX does): that
// handler is handed the signal first, after the report. The preload library
// calls it around dlopen.
DEVCHECK_API void devcheck_sanitizer_reassert_signals();
// Installs a report-mode sanitizer; 0 on success, -1 when one is active.
DEVCHECK_API int devcheck_sanitizer_start(int provenance);
// Removes it; returns how many findings it had (-1 when none was started).
DEVCHECK_API int devcheck_sanitizer_stop();
}
