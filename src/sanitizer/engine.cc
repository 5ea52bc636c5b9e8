#include "sanitizer/engine.h"

#include <unistd.h>

#include <algorithm>

#include "devcheck/error.h"
#include "sanitizer/steps.h"

namespace devcheck::sanitizer {
namespace {

// One op in this many (per thread, at random) reaches this callback: enough
// to bring a thread that existed before the session in within a few dozen
// ops, too rare to cost anything measurable.
constexpr double kJoinSampling = 1.0 / 32;

std::unique_ptr<at::ObserverContext> join_on_sampled_op(const at::RecordFunction& /*fn*/) {
  if (Engine::get().active()) join_this_thread();
  return nullptr;
}

}  // namespace

Engine::Engine() {
  snapshots_.push_back(std::make_unique<const SanitizerOptions>());
  settings_.store(snapshots_.back().get());
}

Engine& Engine::get() {
  static auto* engine = new Engine();  // never destroyed; see engine.h
  return *engine;
}

void Engine::start(const SanitizerOptions& options) {
  std::lock_guard<std::mutex> lock(install_mutex_);
  if (active_.load()) {
    throw InvalidArgumentError(
        "[devcheck] a devcheck::Sanitizer is already installed in this process; expected one at "
        "a time, found a second one being created\nfix: keep one Sanitizer for the whole run "
        "(or end the first before creating another)");
  }
  install_watch_kernels();
  refresh_machinery_ranges();
  auto snapshot = std::make_unique<SanitizerOptions>(options);
  snapshot->small_copy_count(std::max<std::uint64_t>(options.small_copy_count(), 1));
  settings_.store(snapshot.get(), std::memory_order_release);
  snapshots_.push_back(std::move(snapshot));
  provenance.set_capacity(options.max_tracked_tensors());
  generation_.fetch_add(1);
  clear();
  handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&join_on_sampled_op)
                                      .samplingProb(kJoinSampling)
                                      .scopes({at::RecordScope::FUNCTION}));
  steps_handle_ = add_step_callback();
  active_.store(true);
  join_new_threads(true);
  join_this_thread();
}

void Engine::stop() {
  std::lock_guard<std::mutex> lock(install_mutex_);
  if (!active_.load()) return;
  active_.store(false);
  join_new_threads(false);
  at::removeCallback(handle_);
  at::removeCallback(steps_handle_);
  handle_ = 0;
  steps_handle_ = 0;
  leave_this_thread();       // the others leave at their next op
  generation_.fetch_add(1);  // explain() no longer reports this session's findings
}

void Engine::clear() {
  provenance.clear();
  clear_findings();
}

void Engine::clear_findings() {
  ledger.clear();
  ops_checked.store(0);
  std::lock_guard<std::mutex> lock(findings_mutex_);
  mismatches_.clear();
  mismatch_index_.clear();
  mismatch_total_.store(0);
}

std::pair<std::size_t, bool> Engine::add_mismatch(MismatchRecord&& record) {
  std::string key = record.op + "@" + std::to_string(record.site);
  std::lock_guard<std::mutex> lock(findings_mutex_);
  mismatch_total_.fetch_add(1, std::memory_order_relaxed);
  auto it = mismatch_index_.find(key);
  if (it != mismatch_index_.end()) {
    ++mismatches_[it->second].count;
    return {it->second, false};
  }
  record.count = 1;
  mismatches_.push_back(std::move(record));
  mismatch_index_.emplace(std::move(key), mismatches_.size() - 1);
  return {mismatches_.size() - 1, true};
}

std::vector<MismatchRecord> Engine::mismatches() const {
  std::lock_guard<std::mutex> lock(findings_mutex_);
  return mismatches_;
}

MismatchRecord Engine::mismatch(std::size_t index) const {
  std::lock_guard<std::mutex> lock(findings_mutex_);
  return index < mismatches_.size() ? mismatches_[index] : MismatchRecord{};
}

void Engine::warn(const std::string& text) {
  static std::mutex* m = new std::mutex;
  std::lock_guard<std::mutex> lock(*m);
  const std::string line = text.back() == '\n' ? text : text + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace devcheck::sanitizer
