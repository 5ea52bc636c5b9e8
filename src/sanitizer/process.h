#pragma once
// The process-wide sanitizer that DEVCHECK_SANITIZE and the preload library
// install, and the hooks that write its report at exit, on std::terminate and
// on fatal signals.

#include <signal.h>

#include <string>

namespace devcheck::sanitizer {

// kFail: at exit, a recorded mismatch makes the exit status 1 (once per process).
void arm_fail_exit_status();

// Installs the sanitizer from the environment when DEVCHECK_SANITIZE is set
// and none is active. Returns true when one was installed. Never throws: a
// malformed variable is reported on stderr and ignored.
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
int devcheck_sanitizer_autostart();
// The preload library's sigaction() asks this first. For a fatal signal the
// sanitizer's handler holds, `act` becomes the action it hands the signal on
// to and `old` gets the one before; returns 1 (done, nothing else to do).
// Returns 0 for any other signal: the caller does the real sigaction.
// Async-signal-safe.
int devcheck_sanitizer_sigaction(int sig, const struct sigaction* act, struct sigaction* old);
// Takes back each fatal signal the sanitizer held and another library then
// installed its handler for past sigaction() interposers (UCX does): that
// handler is handed the signal first, after the report. The preload library
// calls it around dlopen.
void devcheck_sanitizer_reassert_signals();
// Installs a report-mode sanitizer; 0 on success, -1 when one is active.
int devcheck_sanitizer_start(int provenance);
// Removes it; returns how many findings it had (-1 when none was started).
int devcheck_sanitizer_stop();
}
