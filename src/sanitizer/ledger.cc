#include "sanitizer/ledger.h"

namespace devcheck::sanitizer {
namespace {

std::size_t mix(std::size_t h, std::size_t v) { return (h ^ v) * 1099511628211ULL; }

std::size_t device_bits(c10::Device d) {
  return (static_cast<std::size_t>(d.type()) << 8) ^ static_cast<std::size_t>(d.index() + 1);
}

}  // namespace

std::size_t TransferKeyHash::operator()(const TransferKey& k) const {
  std::size_t h = 1469598103934665603ULL;
  h = mix(h, k.site);
  h = mix(h, reinterpret_cast<std::uintptr_t>(k.op));
  h = mix(h, device_bits(k.src));
  h = mix(h, device_bits(k.dst));
  return mix(h, k.pinned ? 1 : 0);
}

std::size_t SyncKeyHash::operator()(const SyncKey& k) const {
  std::size_t h = 1469598103934665603ULL;
  h = mix(h, k.site);
  h = mix(h, reinterpret_cast<std::uintptr_t>(k.op));
  return mix(h, device_bits(k.device));
}

bool Ledger::add_transfer(const TransferKey& key, std::uint64_t bytes, bool synchronizing,
                          std::uint64_t thread, std::uint64_t op_index, std::uint64_t small_bytes,
                          std::uint64_t burst_ops, std::uint64_t min_count) {
  std::lock_guard<std::mutex> lock(mutex_);
  TransferEntry& e = transfers_[key];
  if (bytes <= small_bytes) {
    ++e.small;
    if (e.count > 0 && e.last_thread == thread && op_index - e.last_op <= burst_ops)
      ++e.small_burst;
  }
  ++e.count;
  e.bytes += bytes;
  if (synchronizing) ++e.synchronizing;
  e.last_thread = thread;
  e.last_op = op_index;
  if (!e.flagged && is_small_copy_finding(e, min_count)) {
    e.flagged = true;
    return true;
  }
  return false;
}

void Ledger::add_sync(const SyncKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++syncs_[key];
}

void Ledger::add_event(const TraceEvent& event, std::size_t max_events) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.size() >= max_events) {
    ++dropped_;
    return;
  }
  events_.push_back(event);
}

void Ledger::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  transfers_.clear();
  syncs_.clear();
  events_.clear();
  dropped_ = 0;
}

std::vector<std::pair<TransferKey, TransferEntry>> Ledger::transfers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {transfers_.begin(), transfers_.end()};
}

std::vector<std::pair<SyncKey, std::uint64_t>> Ledger::syncs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {syncs_.begin(), syncs_.end()};
}

std::vector<TraceEvent> Ledger::events(std::uint64_t* dropped) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (dropped != nullptr) *dropped = dropped_;
  return events_;
}

bool is_small_copy_finding(const TransferEntry& entry, std::uint64_t min_count) {
  return entry.small >= min_count && entry.small_burst * 2 >= entry.small;
}

}  // namespace devcheck::sanitizer
