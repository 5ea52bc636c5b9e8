#pragma once
// The transfer ledger: every cross-device copy and every synchronizing op,
// counted per (site, direction), and the timeline for the Chrome trace.

#include <c10/core/Device.h>
#include <c10/core/Storage.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "sanitizer/stack.h"

namespace devcheck::sanitizer {

struct TransferKey {
  SiteId site;
  const char* op;  // static storage
  c10::Device src;
  c10::Device dst;
  bool pinned;  // a host -> pinned host copy (pin_memory)
  bool operator==(const TransferKey& o) const {
    return site == o.site && op == o.op && src == o.src && dst == o.dst && pinned == o.pinned;
  }
};

struct TransferKeyHash {
  std::size_t operator()(const TransferKey& k) const;
};

struct TransferEntry {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t synchronizing = 0;
  std::uint64_t small = 0;  // copies of at most small_copy_bytes
  // The most small copies one flood of this site made: copies within one step
  // and one burst, each reading or writing a tensor (storage) another copy of
  // that burst also read or wrote (see Ledger::add_transfer).
  std::uint64_t flood = 0;
  bool flagged = false;  // became a finding (warned once)
};

// One copy as the ledger counts it.
struct CopyEvent {
  std::uint64_t bytes = 0;
  bool synchronizing = false;
  std::uint64_t thread = 0;    // thread_key()
  std::uint64_t op_index = 0;  // the thread's op counter
  std::uint64_t step = 0;      // step_epoch() (steps.h)
  // The storages the copy reads and writes (null for none), alive during the call.
  const c10::Storage* read = nullptr;
  const c10::Storage* written = nullptr;
  bool counted = true;  // false: more bytes of a coalesced transfer already counted
};

// When small copies are a flood.
struct FloodRule {
  std::uint64_t small_bytes = 0;  // a copy of at most this many bytes is small (0: none)
  std::uint64_t burst_ops = 0;    // consecutive copies at most this many ops apart
  std::uint64_t min_count = ~0ULL;
};

struct SyncKey {
  SiteId site;
  const char* op;
  c10::Device device;
  bool operator==(const SyncKey& o) const {
    return site == o.site && op == o.op && device == o.device;
  }
};

struct SyncKeyHash {
  std::size_t operator()(const SyncKey& k) const;
};

// One complete event ("X") on the trace timeline, in microseconds.
struct TraceEvent {
  const char* name;  // static storage
  const char* category;
  double ts_us;
  double dur_us;
  std::uint64_t tid;
  std::uint64_t bytes;
  c10::Device src;
  c10::Device dst;
  SiteId site;
};

// Thread-safe.
class Ledger {
 public:
  // Counts a copy. A site's small copies are a flood when one burst of them
  // (same thread, same step, each at most rule.burst_ops ops after the
  // previous one) has rule.min_count copies that are pieces of the same
  // tensors: each reads or writes a storage an earlier copy of the burst read
  // or wrote (per-sample slices of one batch, a tensor filled element by
  // element, the same tensor copied again). One copy per tensor per step is
  // never one: a module's or a state dict's tensors moved once, a batch per
  // step. Returns true exactly once per key: when it first floods.
  bool add_transfer(const TransferKey& key, const CopyEvent& copy, const FloodRule& rule);
  void add_sync(const SyncKey& key);
  void add_event(const TraceEvent& event, std::size_t max_events);
  void clear();

  std::vector<std::pair<TransferKey, TransferEntry>> transfers() const;
  std::vector<std::pair<SyncKey, std::uint64_t>> syncs() const;
  std::vector<TraceEvent> events(std::uint64_t* dropped) const;

 private:
  mutable std::mutex mutex_;
  // The burst a site's copies are in: where it started and the storages its
  // copies touched (held weakly, so a recorded address is never reused by
  // another storage while it is compared).
  struct Burst {
    std::uint64_t thread = 0;
    std::uint64_t last_op = 0;
    std::uint64_t step = 0;
    std::uint64_t pieces = 0;
    std::unordered_map<const c10::StorageImpl*, c10::weak_intrusive_ptr<c10::StorageImpl>> touched;
  };
  // Whether `storage` was touched in the burst (and remembers it).
  static bool touched_again(Burst& burst, const c10::Storage* storage);

  std::unordered_map<TransferKey, TransferEntry, TransferKeyHash> transfers_;
  std::unordered_map<TransferKey, Burst, TransferKeyHash> bursts_;
  std::unordered_map<SyncKey, std::uint64_t, SyncKeyHash> syncs_;
  std::vector<TraceEvent> events_;
  std::uint64_t dropped_ = 0;
};

// Whether a site's copies are a "many small copies" finding: one flood of at
// least min_count copies.
bool is_small_copy_finding(const TransferEntry& entry, std::uint64_t min_count);

}  // namespace devcheck::sanitizer
