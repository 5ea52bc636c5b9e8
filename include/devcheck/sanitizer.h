#pragma once
/// The runtime device sanitizer: watches every ATen op while a program runs
/// and reports tensors on the wrong device (with where each was made), every
/// host<->device copy, and every synchronizing op.
///
///   devcheck::Sanitizer
///   sanitizer(devcheck::SanitizerOptions().mode(devcheck::SanitizerMode::kWarn)); train(); // runs
///   as usual devcheck::SanitizerReport r = sanitizer.report(); if (!r.ok()) std::cerr <<
///   r.to_text();
///
/// The sanitizer records and reports; it never stops an op, which still runs
/// (and raises its own error when it must). How it watches ops and which
/// threads: docs/sanitizer.md.

#include <c10/core/Device.h>
#include <c10/util/Exception.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace devcheck {

/// What the sanitizer does when it finds something.
enum class SanitizerMode {
  kReport,  ///< Record only; the report is written when the sanitizer ends.
  kWarn,    ///< As kReport, and print each finding to stderr the first time its site hits.
  kFail,    ///< As kWarn, and the process exits with status 1 if a device mismatch was found.
};

/// "report", "warn", "fail" -> the mode. Throws InvalidArgumentError naming `text`.
DEVCHECK_API SanitizerMode parse_sanitizer_mode(const std::string& text);
/// The mode's name: "report", "warn", "fail".
DEVCHECK_API const char* to_string(SanitizerMode mode);

/// How the sanitizer runs. Every setter returns *this, so options chain:
///   SanitizerOptions().mode(SanitizerMode::kFail).provenance(false)
/// Value type; thread-safe to copy.
class DEVCHECK_API SanitizerOptions {
 public:
  /// Default kReport.
  SanitizerOptions& mode(SanitizerMode value) {
    mode_ = value;
    return *this;
  }
  SanitizerMode mode() const { return mode_; }

  /// Remember where tensors made by factories (ones, empty, tensor, ...) and
  /// by transfers (to, cpu, cuda) were created, so a mismatch names the line
  /// that made the stray tensor. Default true. Costs a stack capture per
  /// factory op and a little per op; false makes the sanitizer cheaper.
  SanitizerOptions& provenance(bool value) {
    provenance_ = value;
    return *this;
  }
  bool provenance() const { return provenance_; }

  /// Where to write the JSON report when the sanitizer ends (destructor or
  /// process exit). Default "" (not written).
  SanitizerOptions& json_path(std::string value) {
    json_path_ = std::move(value);
    return *this;
  }
  const std::string& json_path() const { return json_path_; }

  /// Where to write a Chrome Trace Event file of copies and syncs when the
  /// sanitizer ends (opens in Perfetto or chrome://tracing). Setting it turns
  /// trace recording on. Default "" (no trace).
  SanitizerOptions& trace_path(std::string value) {
    trace_path_ = std::move(value);
    return *this;
  }
  const std::string& trace_path() const { return trace_path_; }

  /// Record trace events even without trace_path (SanitizerReport::to_trace_json()).
  /// Default false.
  SanitizerOptions& trace(bool value) {
    trace_ = value;
    return *this;
  }
  bool trace() const { return trace_ || !trace_path_.empty(); }

  /// A copy of at most this many bytes counts as small. Default 65536 (64 KiB).
  SanitizerOptions& small_copy_bytes(std::uint64_t value) {
    small_copy_bytes_ = value;
    return *this;
  }
  std::uint64_t small_copy_bytes() const { return small_copy_bytes_; }

  /// Small copies of one direction from one call site, pieces of the same
  /// tensors within one step (docs/sanitizer.md, "Many small copies"), needed
  /// before they are a finding ("stack them and copy once"). Default 64.
  SanitizerOptions& small_copy_count(std::uint64_t value) {
    small_copy_count_ = value;
    return *this;
  }
  std::uint64_t small_copy_count() const { return small_copy_count_; }

  /// Two copies from one site on one thread with at most this many ATen ops
  /// between them are in one burst; a flood is one burst's copies. A step
  /// boundary (a backward pass, an optimizer step) also ends a burst.
  /// Default 32 ops.
  SanitizerOptions& small_copy_burst_ops(std::uint64_t value) {
    burst_ops_ = value;
    return *this;
  }
  std::uint64_t small_copy_burst_ops() const { return burst_ops_; }

  /// Most tensors whose origin is remembered at once; the oldest are
  /// forgotten first. Bounds memory to roughly 200 bytes per entry.
  /// Default 65536.
  SanitizerOptions& max_tracked_tensors(std::size_t value) {
    max_tracked_ = value;
    return *this;
  }
  std::size_t max_tracked_tensors() const { return max_tracked_; }

  /// Most trace events kept; later ones are counted and dropped. Default 200000.
  SanitizerOptions& max_trace_events(std::size_t value) {
    max_trace_events_ = value;
    return *this;
  }
  std::size_t max_trace_events() const { return max_trace_events_; }

  /// Print the text report to stderr when the sanitizer ends, if it found
  /// anything (a clean run prints nothing). Default true.
  SanitizerOptions& print_summary(bool value) {
    print_summary_ = value;
    return *this;
  }
  bool print_summary() const { return print_summary_; }

  /// Options from the environment, as `devcheck run` sets them:
  /// DEVCHECK_SANITIZE (off|on|report|warn|fail; on = report),
  /// DEVCHECK_SANITIZE_PROVENANCE (off|on), DEVCHECK_SANITIZE_JSON and
  /// DEVCHECK_SANITIZE_TRACE (off|FILE). off/0/false/no and on/1/true/yes are
  /// accepted alike, in any case, by every variable; unset or empty is the
  /// default. Throws InvalidArgumentError naming the variable and the values
  /// it accepts when one is malformed.
  static SanitizerOptions from_env();

 private:
  SanitizerMode mode_ = SanitizerMode::kReport;
  bool provenance_ = true;
  std::string json_path_;
  std::string trace_path_;
  bool trace_ = false;
  std::uint64_t small_copy_bytes_ = std::uint64_t{64} * 1024;
  std::uint64_t small_copy_count_ = 64;
  std::uint64_t burst_ops_ = 32;
  std::size_t max_tracked_ = 65536;
  std::size_t max_trace_events_ = 200000;
  bool print_summary_ = true;
};

/// One tensor argument of an op in a device-mismatch finding.
struct DEVCHECK_API SanitizerArgument {
  std::string name;  ///< Schema name: "self", "other", "tensors[1]".
  c10::Device device = c10::Device(c10::kCPU);
  std::string dtype;  ///< PyTorch's name: "float32".
  std::vector<std::int64_t> shape;
  bool stray = false;     ///< Not on the device the op ran on.
  std::string origin_op;  ///< The op that made it ("aten::ones"); "" when unknown.
  std::string origin;     ///< Where it was made ("train.cc:41"); "" when unknown.
  /// When it was derived (triu, division, cumsum) from a tensor of known
  /// origin: the factory or transfer that chain started at, and where;
  /// "" otherwise.
  std::string derived_from_op;
  std::string derived_from;
};

/// What a finding is about.
enum class FindingKind {
  kDeviceMismatch,  ///< An op's tensor arguments are on different devices.
  kSmallCopies,     ///< Many small copies from one call site: batch them.
};

/// One finding: a kind, the op, the user's call site, and the fix. Value type.
struct DEVCHECK_API SanitizerFinding {
  FindingKind kind = FindingKind::kDeviceMismatch;
  std::string op;    ///< "aten::add"; "aten::copy_" for copies.
  std::string site;  ///< The user's line that ran the op: "train.cc:41" / "prog.py:9".
  std::vector<std::string> stack;            ///< Innermost first, as far as it could be symbolized.
  std::uint64_t count = 0;                   ///< Times this op hit at this site.
  std::vector<SanitizerArgument> arguments;  ///< kDeviceMismatch: every tensor argument.
  c10::Device expected = c10::Device(c10::kCPU);  ///< kDeviceMismatch: the op's device.
  std::string direction;                          ///< kSmallCopies: "cpu -> cuda:0".
  std::uint64_t bytes = 0;                        ///< kSmallCopies: total bytes copied.
  std::string message;                            ///< One paragraph, starting with "[devcheck]".
  std::string fix;                                ///< What to change.
};

/// Copies of one direction from one site.
struct DEVCHECK_API TransferStat {
  std::string op;         ///< "aten::copy_", "aten::pin_memory".
  std::string direction;  ///< "cpu -> cuda:0"; "cpu -> cpu (pinned)".
  std::string site;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t synchronizing = 0;  ///< How many of them blocked the host.
};

/// Synchronizing ops (item, _local_scalar_dense, blocking copies to host) from one site.
struct DEVCHECK_API SyncStat {
  std::string op;
  std::string site;
  std::string device;  ///< The device the host waited for.
  std::uint64_t count = 0;
};

/// What the sanitizer saw. Value type; methods are const and thread-safe.
struct DEVCHECK_API SanitizerReport {
  std::vector<SanitizerFinding> findings;
  std::vector<TransferStat> transfers;  ///< Largest count first.
  std::vector<SyncStat> syncs;          ///< Largest count first.
  /// ATen ops whose arguments were checked (other threads' counts may trail by a few hundred).
  std::uint64_t ops_checked = 0;
  std::uint64_t tensors_tracked = 0;  ///< Tensors whose origin is remembered now.
  std::uint64_t trace_events_dropped = 0;
  std::string trace_json;  ///< The Chrome trace ("" unless tracing was on).

  /// True when there are no findings.
  bool ok() const { return findings.empty(); }
  /// Findings of kind kDeviceMismatch.
  std::size_t mismatch_count() const;
  /// A short summary line, then each finding with its sites and fix, then the ledger.
  std::string to_text() const;
  /// The same as a JSON object: summary, findings[], transfers[], syncs[].
  std::string to_json() const;
  /// Writes the Chrome Trace Event file (an empty trace when tracing was off).
  /// Throws IoError naming `path`.
  void write_trace(const std::string& path) const;
};

/// Installs the sanitizer for this process while it lives (RAII). One at a
/// time: constructing a second while one lives throws InvalidArgumentError.
/// The callback checks ops on every thread (autograd and intra-op workers
/// included). When it ends it writes json_path/trace_path and, with
/// print_summary, prints the report to stderr if it found anything; in
/// kFail mode a mismatch makes the process exit status 1 at exit.
/// Methods are thread-safe.
class DEVCHECK_API Sanitizer {
 public:
  explicit Sanitizer(SanitizerOptions options = SanitizerOptions());
  ~Sanitizer();
  Sanitizer(const Sanitizer&) = delete;
  Sanitizer& operator=(const Sanitizer&) = delete;

  /// What was seen so far (symbolizes the sites it names; milliseconds).
  SanitizerReport report() const;
  /// Forgets everything seen so far (findings, ledger, origins).
  void clear();
  /// Forgets the findings, the copy and sync ledger and the op count, but
  /// keeps where tensors were made: a report taken later holds only what
  /// happened after this call, and its findings still name the line that
  /// made a tensor before it. For a session reported in parts (a notebook's
  /// `%%devcheck` cells, each test of a suite). Ops running on other threads
  /// at that moment fall into either part.
  void clear_findings();
  const SanitizerOptions& options() const { return options_; }
  /// Whether any sanitizer is installed in this process.
  static bool active();

 private:
  SanitizerOptions options_;
};

/// For a caller that caught an op's own error: the sanitizer's account of the
/// last device mismatch on this thread while the current Sanitizer is
/// installed (each argument, its device and where it was made), after the
/// error's first line. Without such a finding, the error's message and a hint
/// to run under the sanitizer. Thread-safe.
DEVCHECK_API std::string explain(const c10::Error& error);

/// Runs a command under the sanitizer (see `devcheck run`).
struct DEVCHECK_API SanitizedRunOptions {
  SanitizerOptions sanitizer;  ///< mode, provenance, json_path, trace_path are used.
  /// The preload library; default: libdevcheck_preload.so next to libdevcheck.
  std::string preload_library;
  /// Called once, before the command starts, with a line (ending in '\n')
  /// when the command is watched another way than by the preload library: a
  /// Python whose devcheck package runs it in-process. Default: none.
  std::function<void(const std::string&)> on_notice;
  /// Fake CUDA devices for the command (devcheck/fake_cuda.h): 1 to 8, in
  /// every process of it that loads LibTorch, C++ or Python; 0 for none.
  /// Default 0. run_sanitized() does not look for real GPUs: the caller
  /// decides whether to hide them.
  int fake_cuda = 0;
  /// Whether fake CUDA replaces real CUDA devices the processes would see
  /// (otherwise each process refuses, exit status 2). Default false.
  bool fake_cuda_force = false;
};

/// One process of a sanitized run that loaded LibTorch.
struct DEVCHECK_API SanitizedProcess {
  long pid = 0;
  std::string text;  ///< Its text report.
  std::string json;  ///< Its JSON report.
  std::size_t findings = 0;
  std::size_t mismatches = 0;
};

/// The outcome of run_sanitized().
struct DEVCHECK_API SanitizedRun {
  int exit_status = 0;  ///< The command's exit code, or 128+signal.
  int term_signal = 0;  ///< The signal that ended it, 0 when it exited.
  std::vector<SanitizedProcess> processes;
  /// True when the command was a Python program watched in-process through
  /// that Python's devcheck package (`python -m devcheck run`).
  bool through_python_package = false;
  /// True when a process asked LibTorch whether CUDA is available, or how
  /// many CUDA devices there are (torch.cuda.is_available(),
  /// torch::cuda::device_count(), ...): without fake CUDA on a machine
  /// without a GPU, its CUDA paths then did not run.
  bool asked_for_cuda = false;
  /// 1 when mode is kFail, the command exited 0 and a mismatch was found;
  /// else exit_status.
  int status_for(SanitizerMode mode) const;
};

/// Runs `command` (argv, searched on PATH) with the preload library, which
/// installs the sanitizer in every process of it that loads LibTorch and
/// writes each report at exit (also on an uncaught exception,
/// std::terminate and fatal signals). Writes options.json_path (all processes)
/// and options.trace_path (one merged trace).
///
/// A Python command (`python3 [options] script.py ARGS` or `python3
/// [options] -m module ARGS`) is looked at first, without importing torch
/// (one short run of that Python): when that Python has the devcheck package
/// built for its own torch, the program runs in-process through it (`python
/// -m devcheck run`; only that process is watched) with the same report;
/// when its torch is not the LibTorch devcheck was built for and it has no
/// such package, nothing runs.
///
/// Throws InvalidArgumentError for an empty command and for a Python that
/// cannot be watched (naming its torch, devcheck's and the pip command that
/// fixes it), IoError when the command or the preload library cannot be found.
DEVCHECK_API SanitizedRun run_sanitized(const std::vector<std::string>& command,
                                        const SanitizedRunOptions& options);

/// Path of the preload library next to libdevcheck ($DEVCHECK_PRELOAD wins).
/// Throws IoError when it is missing.
DEVCHECK_API std::string sanitizer_preload_library();

}  // namespace devcheck
