#pragma once
// The sanitizer's process-wide state and its RecordFunction callback.
//
// The Engine is created once and never destroyed: RecordFunction may still
// run a callback it snapshotted after removeCallback returned (an end
// callback of an op in flight on another thread), and during process exit.
// A session (one Sanitizer) clears it, registers the callback, and removes
// it; records carry the session's generation so a straggler cannot leak into
// the next session's findings.

#include <ATen/record_function.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "devcheck/sanitizer.h"
#include "sanitizer/ledger.h"
#include "sanitizer/provenance.h"
#include "sanitizer/stack.h"

namespace devcheck::sanitizer {

struct ArgRecord {
  std::string name;
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::ScalarType::Undefined;
  std::vector<std::int64_t> shape;
  bool stray = false;
  bool origin_known = false;
  Origin origin;
};

struct MismatchRecord {
  std::string op;
  SiteId site = kNoSite;
  std::uint64_t count = 0;
  c10::Device expected = c10::Device(c10::kCPU);
  std::vector<ArgRecord> args;
};

class Engine {
 public:
  static Engine& get();

  // Registers the callback. Throws InvalidArgumentError when a session is active.
  void start(const SanitizerOptions& options);
  // Removes the callback; the recorded data stay until the next start().
  void stop();
  bool active() const { return active_.load(std::memory_order_relaxed); }
  std::uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }
  void clear();

  // Settings the callback reads (atomics: a straggler may read during start()).
  std::atomic<bool> provenance_on{true};
  std::atomic<bool> trace_on{false};
  std::atomic<int> mode{0};
  std::atomic<std::uint64_t> small_copy_bytes{std::uint64_t{64} * 1024};
  std::atomic<std::uint64_t> small_copy_count{64};
  std::atomic<std::uint64_t> burst_ops{32};
  std::atomic<std::size_t> max_trace_events{200000};

  std::atomic<std::uint64_t> ops_checked{0};  // approximate: see flush_op_count()
  // Set when a kFail session found a mismatch; the exit hook turns it into status 1.
  std::atomic<bool> fail_requested{false};

  ProvenanceMap provenance;
  Ledger ledger;

  // Adds (or counts again) a mismatch; returns its index and whether it is new.
  std::pair<std::size_t, bool> add_mismatch(MismatchRecord&& record);
  std::vector<MismatchRecord> mismatches() const;
  MismatchRecord mismatch(std::size_t index) const;
  std::size_t mismatch_total() const { return mismatch_total_.load(std::memory_order_relaxed); }

  // Prints a finding's text to stderr (warn and fail modes), one write.
  static void warn(const std::string& text);

 private:
  Engine() = default;

  std::mutex install_mutex_;
  std::atomic<bool> active_{false};
  std::atomic<std::uint64_t> generation_{0};
  at::CallbackHandle handle_ = 0;

  mutable std::mutex findings_mutex_;
  std::vector<MismatchRecord> mismatches_;
  std::unordered_map<std::string, std::size_t> mismatch_index_;  // op + site
  std::atomic<std::size_t> mismatch_total_{0};
};

// The last mismatch recorded on this thread, for explain(): index into
// Engine::mismatches(), -1 when none in the current session.
long last_mismatch_on_this_thread();

// Adds this thread's not yet counted ops to Engine::ops_checked (other
// threads flush every few hundred ops, so the count may trail by that much).
void flush_op_count();

// The start and end callbacks (exposed for tests).
std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn);
void on_op_end(const at::RecordFunction& fn, at::ObserverContext* context);

}  // namespace devcheck::sanitizer
