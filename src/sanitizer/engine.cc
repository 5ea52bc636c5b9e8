#include "sanitizer/engine.h"

#include <unistd.h>

#include <algorithm>

#include "devcheck/error.h"

namespace devcheck::sanitizer {

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
  provenance_on.store(options.provenance());
  trace_on.store(options.trace());
  mode.store(static_cast<int>(options.mode()));
  small_copy_bytes.store(options.small_copy_bytes());
  small_copy_count.store(std::max<std::uint64_t>(options.small_copy_count(), 1));
  burst_ops.store(options.small_copy_burst_ops());
  max_trace_events.store(options.max_trace_events());
  provenance.set_capacity(options.max_tracked_tensors());
  generation_.fetch_add(1);
  clear();
  auto callback = at::RecordFunctionCallback(&on_op_start, &on_op_end)
                      .needsInputs(true)
                      .needsOutputs(options.provenance())
                      .scopes({at::RecordScope::FUNCTION});
  handle_ = at::addGlobalCallback(callback);
  active_.store(true);
}

void Engine::stop() {
  std::lock_guard<std::mutex> lock(install_mutex_);
  if (!active_.load()) return;
  active_.store(false);
  at::removeCallback(handle_);
  handle_ = 0;
  generation_.fetch_add(1);  // explain() no longer reports this session's findings
}

void Engine::clear() {
  provenance.clear();
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
