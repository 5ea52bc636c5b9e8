#include "sanitizer/stack.h"

#include <execinfo.h>
#include <link.h>

#include <algorithm>
#include <atomic>
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

// The executable code of LibTorch and devcheck: the frames a site starts
// with inside the op's machinery. Which of LibTorch's paths ran (a sampled
// RecordFunction, a boxed or an unboxed call) changes them from one call to
// the next at the same user line, so a site begins at the first frame outside.
struct CodeRanges {
  static constexpr int kMax = 32;
  int count = 0;
  std::uintptr_t lo[kMax] = {};
  std::uintptr_t hi[kMax] = {};

  bool contains(const void* pc) const {
    const auto a = reinterpret_cast<std::uintptr_t>(pc);
    for (int i = 0; i < count; ++i) {
      if (a >= lo[i] && a < hi[i]) return true;
    }
    return false;
  }
};

bool is_machinery(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* base = slash == nullptr ? path : slash + 1;
  return std::strncmp(base, "libtorch", 8) == 0 || std::strncmp(base, "libc10", 6) == 0 ||
         std::strncmp(base, "libdevcheck", 11) == 0;
}

int add_ranges(struct dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* r = static_cast<CodeRanges*>(data);
  if (info->dlpi_name == nullptr || !is_machinery(info->dlpi_name)) return 0;
  for (int i = 0; i < info->dlpi_phnum && r->count < CodeRanges::kMax; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    r->lo[r->count] = info->dlpi_addr + ph.p_vaddr;
    r->hi[r->count] = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    ++r->count;
  }
  return 0;
}

// Replaced (never freed: a capture on another thread may still read the old
// one) when a session starts and LibTorch's libraries may have been loaded.
std::atomic<const CodeRanges*> g_machinery{nullptr};

const CodeRanges& machinery() {
  const CodeRanges* r = g_machinery.load(std::memory_order_acquire);
  if (r == nullptr) {
    refresh_machinery_ranges();
    r = g_machinery.load(std::memory_order_acquire);
  }
  return *r;
}

}  // namespace

void refresh_machinery_ranges() {
  auto* r = new CodeRanges();
  dl_iterate_phdr(add_ranges, r);
  g_machinery.store(r, std::memory_order_release);
}

void capture_stack(RawStack& out) {
  constexpr int kCaptureFrames = kMaxFrames + 24;  // room for the machinery's frames
  void* pcs[kCaptureFrames];
  int depth = backtrace(pcs, kCaptureFrames);
  if (depth < 0) depth = 0;
  // Innermost first: frames of whatever wraps backtrace() (a sanitizer
  // runtime), devcheck's, LibTorch's, then the caller's.
  const CodeRanges& skip = machinery();
  int first = 0;
  while (first < depth && !skip.contains(pcs[first])) ++first;
  while (first < depth && skip.contains(pcs[first])) ++first;
  if (first == depth) first = 0;  // no frame outside: keep them all
  out.depth = std::min(depth - first, kMaxFrames);
  std::memcpy(out.pcs, pcs + first, sizeof(void*) * static_cast<std::size_t>(out.depth));
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
  // Python first, with none of our locks held (it may take the GIL). A
  // Python line is the site: the interpreter's own C++ frames below it differ
  // from one call of the same line to the next (3.12+ specializes a call
  // after its first runs), and one line must be one site.
  const std::string python = python_location();
  if (!python.empty()) return sites().intern(RawStack{}, python);
  RawStack stack;
  capture_stack(stack);
  return sites().intern(stack, python);
}

}  // namespace devcheck::sanitizer
