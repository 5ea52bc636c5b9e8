#pragma once
// Where tensors were made: storage -> (op, call site), bounded, and never
// confused by address reuse.
//
// Keyed by StorageImpl* (views share their base's origin). Each entry holds a
// weak reference to its StorageImpl: while the entry lives, the StorageImpl
// object cannot be freed, so no new storage can appear at that address; a
// dead storage shows as an expired weak reference and is never reported.
// Memory is bounded by `capacity` entries: expired ones are swept first, then
// the oldest are forgotten.

#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "sanitizer/stack.h"

namespace devcheck::sanitizer {

struct Origin {
  const char* op = nullptr;  // static storage ("aten::ones")
  SiteId site = kNoSite;
  // For a tensor derived from one of known origin (triu of a ones): the
  // factory or transfer that chain started from; null/kNoSite otherwise.
  const char* from_op = nullptr;
  SiteId from_site = kNoSite;
};

// Thread-safe.
class ProvenanceMap {
 public:
  explicit ProvenanceMap(std::size_t capacity = 65536) : capacity_(capacity) {}
  ~ProvenanceMap();
  ProvenanceMap(const ProvenanceMap&) = delete;
  ProvenanceMap& operator=(const ProvenanceMap&) = delete;

  // Remembers that `storage` (alive, held by the caller) was made by `origin`.
  void record(const c10::Storage& storage, Origin origin);
  // The origin of a live storage; nullopt when it was not seen being made.
  std::optional<Origin> find(const c10::StorageImpl* storage) const;
  // Entries now (live and not yet swept).
  std::size_t size() const;
  void clear();
  void set_capacity(std::size_t capacity);

 private:
  struct Entry {
    c10::weak_intrusive_ptr<c10::StorageImpl> weak;
    Origin origin;
    std::uint64_t seq;
  };
  void make_room();  // requires mutex_

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::uint64_t next_seq_ = 0;
  std::unordered_map<const c10::StorageImpl*, Entry> entries_;
};

}  // namespace devcheck::sanitizer
