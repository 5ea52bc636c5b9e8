#include "sanitizer/ledger.h"

#include <algorithm>

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

// At most this many storages are remembered per burst: enough to see the
// pieces of a flood, bounded when one call moves thousands of tensors once.
constexpr std::size_t kMaxTouched = 512;

bool Ledger::touched_again(Burst& burst, const c10::Storage* storage) {
  if (storage == nullptr || !*storage) return false;
  const c10::StorageImpl* impl = storage->unsafeGetStorageImpl();
  if (burst.touched.count(impl) != 0) return true;
  if (burst.touched.size() < kMaxTouched)
    burst.touched.emplace(impl, storage->getWeakStorageImpl());
  return false;
}

bool Ledger::add_transfer(const TransferKey& key, const CopyEvent& copy, const FloodRule& rule) {
  // A burst's weak references are dropped after the lock is released (it is
  // declared first): dropping a storage's last one destroys its StorageImpl,
  // whose Python object's release may take the GIL.
  decltype(Burst::touched) dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  TransferEntry& e = transfers_[key];
  if (copy.counted) ++e.count;
  e.bytes += copy.bytes;
  if (copy.synchronizing) ++e.synchronizing;
  if (copy.bytes > rule.small_bytes || !copy.counted) return false;
  ++e.small;
  Burst& b = bursts_[key];
  if (b.thread != copy.thread || b.step != copy.step ||
      copy.op_index - b.last_op > rule.burst_ops || b.touched.empty()) {
    b.thread = copy.thread;
    b.step = copy.step;
    b.pieces = 0;
    dropped.swap(b.touched);
  }
  b.last_op = copy.op_index;
  const bool read_again = touched_again(b, copy.read);
  const bool written_again = touched_again(b, copy.written);
  if (read_again || written_again) {
    ++b.pieces;
    e.flood = std::max(e.flood, b.pieces + 1);  // the first piece started the flood
  }
  if (!e.flagged && is_small_copy_finding(e, rule.min_count)) {
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
  decltype(bursts_) dropped;  // released after the lock, as in add_transfer
  std::lock_guard<std::mutex> lock(mutex_);
  transfers_.clear();
  dropped.swap(bursts_);
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
  return entry.flood >= min_count;
}

}  // namespace devcheck::sanitizer
