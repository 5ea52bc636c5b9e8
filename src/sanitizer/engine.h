#pragma once
// The sanitizer's process-wide state and how it sees ops.
//
// Ops are watched by a boxed fallback on one dispatch key (kWatchKey), the
// way PyTorch's own dispatch modes work: a thread is watched while that key
// is in its thread-local included set. The fallback sees the op's arguments
// before it runs and its results after, and runs it with the key excluded,
// so only the ops a program calls are watched, not the ops they call inside;
// of those, the copies and syncs are still seen, through kernels on a second
// key (kObserveKey) that every other op falls through.
// Threads join a session when it starts (the starting thread), when they are
// created during it (the preload library's pthread_create, see threads.cc),
// through LibTorch's own
// thread-local state propagation (autograd, at::launch), or else at their
// first op a sampled RecordFunction callback sees. A thread leaves at its
// first op after the session ends.
//
// The Engine is created once and never destroyed: an op in flight on another
// thread may still be in the fallback after stop() returned, and ops run
// during process exit. A session (one Sanitizer) clears it and starts and
// stops the watch; records carry the session's generation so a straggler
// cannot leak into the next session's findings.

#include <ATen/core/stack.h>
#include <ATen/record_function.h>
#include <c10/core/Device.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/ScalarType.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "devcheck/sanitizer.h"
#include "sanitizer/ledger.h"
#include "sanitizer/provenance.h"
#include "sanitizer/stack.h"

namespace c10 {
class OperatorHandle;
}

namespace devcheck::sanitizer {

// The dispatch key of the watch: a mode key above autograd whose fallback
// LibTorch leaves unregistered in 1.13 and 2.x (its one user is torchdistx,
// out of tree). Not a TESTING_ONLY key: programs register fallbacks for those
// themselves (LibTorch's own backend_fallback_test does), and a program must
// run the same under the sanitizer. If the key's fallback is taken when a
// session starts, the sanitizer does not start and says so.
constexpr c10::DispatchKey kWatchKey = c10::DispatchKey::DeferredInit;
// The observer: kernels for copy_ and _local_scalar_dense on BackendSelect,
// a key every dispatch passes and whose fallback LibTorch registers as a
// fallthrough (so every other op passes it for free, and the sanitizer
// registers no fallback a program could want). They count the copies and
// syncs an op makes on its own, on watched threads inside a watched op.
constexpr c10::DispatchKey kObserveKey = c10::DispatchKey::BackendSelect;

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

  // Starts watching (this thread at once, the others as they join). Throws
  // InvalidArgumentError when a session is active, or when the watch's
  // dispatch key is taken by another library.
  void start(const SanitizerOptions& options);
  // Stops watching; the recorded data stay until the next start().
  void stop();
  bool active() const { return active_.load(std::memory_order_relaxed); }
  std::uint64_t generation() const { return generation_.load(std::memory_order_relaxed); }
  // Forgets everything recorded: origins, ledger, findings, the op count.
  void clear();
  // Forgets the ledger, the findings and the op count, keeping the origins:
  // a later finding still names where an older tensor was made.
  void clear_findings();

  // The settings of the current (or last) session: a snapshot taken by
  // start() and never changed. A later start() publishes a new one; the old
  // ones stay alive (a straggler op may still read them), so a reference
  // stays valid and unchanged. Default options before the first session.
  const SanitizerOptions& settings() const { return *settings_.load(std::memory_order_acquire); }

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
  Engine();

  std::mutex install_mutex_;
  std::atomic<const SanitizerOptions*> settings_;
  std::vector<std::unique_ptr<const SanitizerOptions>> snapshots_;  // under install_mutex_
  std::atomic<bool> active_{false};
  std::atomic<std::uint64_t> generation_{0};
  at::CallbackHandle handle_ = 0;
  at::CallbackHandle steps_handle_ = 0;  // steps.h

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

// Registers watch_op and the observers, once per process (they stay: with
// the keys in no thread's set they cost nothing). Throws InvalidArgumentError
// when another library has taken the keys. Call under the install mutex.
void install_watch_kernels();

// The fallback: checks, counts and records one op, and runs it.
void watch_op(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack);

// Puts this thread under the watch / takes it out (thread-local, cheap).
void join_this_thread();
void leave_this_thread();

// Whether threads created from now on join at birth (threads.cc).
void join_new_threads(bool on);

}  // namespace devcheck::sanitizer
