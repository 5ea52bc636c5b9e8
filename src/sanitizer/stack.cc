#include "sanitizer/stack.h"

#include <execinfo.h>

#include <cstring>

#include "sanitizer/python.h"

namespace devcheck::sanitizer {
namespace {

std::uint64_t hash_site(const void* const* pcs, int depth, const std::string& python) {
  std::uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < depth; ++i) {
    h = (h ^ reinterpret_cast<std::uintptr_t>(pcs[i])) * 1099511628211ULL;
  }
  for (char c : python) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

void capture_stack(RawStack& out) {
  out.depth = backtrace(out.pcs, kMaxFrames);
  if (out.depth < 0) out.depth = 0;
}

SiteId SiteTable::intern(const RawStack& stack, const std::string& python) {
  const std::uint64_t h = hash_site(stack.pcs, stack.depth, python);
  std::lock_guard<std::mutex> lock(mutex_);
  auto range = by_hash_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    const Site& s = sites_[it->second];
    if (static_cast<int>(s.pcs.size()) == stack.depth && s.python == python &&
        std::memcmp(s.pcs.data(), stack.pcs, sizeof(void*) * stack.depth) == 0) {
      return it->second;
    }
  }
  if (sites_.size() >= max_sites_) return kSiteOverflow;
  const auto id = static_cast<SiteId>(sites_.size());
  sites_.push_back(Site{std::vector<void*>(stack.pcs, stack.pcs + stack.depth), python});
  by_hash_.emplace(h, id);
  return id;
}

Site SiteTable::get(SiteId id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (id < 2 || id >= sites_.size()) return {};
  return sites_[id];
}

std::size_t SiteTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sites_.size() - 2;
}

SiteTable& sites() {
  static auto* table = new SiteTable();
  return *table;
}

SiteId capture_site() {
  RawStack stack;
  capture_stack(stack);
  // Python first, with none of our locks held (it may take the GIL).
  const std::string python = python_location();
  return sites().intern(stack, python);
}

}  // namespace devcheck::sanitizer
