#include "sanitizer/provenance.h"

#include <algorithm>
#include <vector>

namespace devcheck::sanitizer {

ProvenanceMap::~ProvenanceMap() = default;

void ProvenanceMap::record(const c10::Storage& storage, Origin origin) {
  const c10::StorageImpl* key = storage.unsafeGetStorageImpl();
  if (key == nullptr) return;
  // Take the weak reference outside the lock; dropping a replaced one may
  // free a dead StorageImpl, which must not happen under our lock either.
  c10::weak_intrusive_ptr<c10::StorageImpl> weak = storage.getWeakStorageImpl();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    it->second.weak.swap(weak);  // `weak` now holds the old reference, dropped after unlock
    it->second.origin = origin;
    it->second.seq = next_seq_++;
    return;
  }
  if (entries_.size() >= capacity_) make_room();
  entries_.emplace(key, Entry{std::move(weak), origin, next_seq_++});
}

void ProvenanceMap::make_room() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.weak.expired() ? entries_.erase(it) : std::next(it);
  }
  if (entries_.size() < capacity_ * 3 / 4) return;
  // Still mostly live: forget the older half.
  std::vector<std::uint64_t> seqs;
  seqs.reserve(entries_.size());
  for (const auto& [key, entry] : entries_) seqs.push_back(entry.seq);
  auto middle = seqs.begin() + static_cast<std::ptrdiff_t>(seqs.size() / 2);
  std::nth_element(seqs.begin(), middle, seqs.end());
  const std::uint64_t cutoff = *middle;
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.seq < cutoff ? entries_.erase(it) : std::next(it);
  }
}

std::optional<Origin> ProvenanceMap::find(const c10::StorageImpl* storage) const {
  if (storage == nullptr) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(storage);
  if (it == entries_.end() || it->second.weak.expired()) return std::nullopt;
  return it->second.origin;
}

std::size_t ProvenanceMap::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void ProvenanceMap::clear() {
  std::unordered_map<const c10::StorageImpl*, Entry> old;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    old.swap(entries_);
  }
}

void ProvenanceMap::set_capacity(std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  capacity_ = std::max<std::size_t>(capacity, 16);
}

}  // namespace devcheck::sanitizer
