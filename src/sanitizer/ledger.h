#pragma once
// The transfer ledger: every cross-device copy and every synchronizing op,
// counted per (site, direction), and the timeline for the Chrome trace.

#include <c10/core/Device.h>

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
  std::uint64_t small = 0;        // copies of at most small_copy_bytes
  std::uint64_t small_burst = 0;  // small copies close (in ops) to the previous one here
  std::uint64_t last_thread = 0;
  std::uint64_t last_op = 0;
  bool flagged = false;  // became a finding (warned once)
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
  // `thread` and `op_index` (per-thread op counter) detect copies in a loop.
  // Returns true exactly once per key: when its copies first become a
  // "many small copies" finding (`min_count` small copies, most in a loop).
  bool add_transfer(const TransferKey& key, std::uint64_t bytes, bool synchronizing,
                    std::uint64_t thread, std::uint64_t op_index, std::uint64_t small_bytes,
                    std::uint64_t burst_ops, std::uint64_t min_count);
  void add_sync(const SyncKey& key);
  void add_event(const TraceEvent& event, std::size_t max_events);
  void clear();

  std::vector<std::pair<TransferKey, TransferEntry>> transfers() const;
  std::vector<std::pair<SyncKey, std::uint64_t>> syncs() const;
  std::vector<TraceEvent> events(std::uint64_t* dropped) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<TransferKey, TransferEntry, TransferKeyHash> transfers_;
  std::unordered_map<SyncKey, std::uint64_t, SyncKeyHash> syncs_;
  std::vector<TraceEvent> events_;
  std::uint64_t dropped_ = 0;
};

// Whether a site's copies are a "many small copies" finding: enough small
// copies, most of them in a loop.
bool is_small_copy_finding(const TransferEntry& entry, std::uint64_t min_count);

}  // namespace devcheck::sanitizer
