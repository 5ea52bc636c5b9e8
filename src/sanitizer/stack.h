#pragma once
// Call sites: raw return addresses captured cheaply when an op runs, interned
// into a bounded table, symbolized only when a report needs them.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace devcheck::sanitizer {

constexpr int kMaxFrames = 40;

// Raw return addresses, innermost first.
struct RawStack {
  int depth = 0;
  void* pcs[kMaxFrames];
};

// Fills `out` with the caller's stack (glibc backtrace(): ~1-3 us), from the
// first frame outside LibTorch and devcheck (all frames if none is).
void capture_stack(RawStack& out);

// Re-reads where LibTorch's and devcheck's code is mapped (at session start).
void refresh_machinery_ranges();

using SiteId = std::uint32_t;
constexpr SiteId kNoSite = 0;        // not captured (provenance off, or unknown)
constexpr SiteId kSiteOverflow = 1;  // the table was full

struct Site {
  std::vector<void*> pcs;  // innermost first
  std::string python;      // "prog.py:12 (main)" when Python code ran the op
};

// Interned call sites. Thread-safe; bounded (`max_sites`, then kSiteOverflow).
// Ids stay valid for the life of the process, so records that outlive a
// sanitizer session can still name their sites.
class SiteTable {
 public:
  explicit SiteTable(std::size_t max_sites = 1 << 16) : max_sites_(max_sites) {}
  SiteId intern(const RawStack& stack, const std::string& python);
  // A copy of the site; an empty Site for kNoSite/kSiteOverflow/unknown ids.
  Site get(SiteId id) const;
  std::size_t size() const;

 private:
  std::size_t max_sites_;
  mutable std::mutex mutex_;
  std::vector<Site> sites_{Site{}, Site{}};  // ids 0 and 1 are reserved
  std::unordered_multimap<std::uint64_t, SiteId> by_hash_;
};

// The process-wide table (leaked: callbacks may run during exit).
SiteTable& sites();

// Captures the current call site (native stack and, inside Python, the
// user's file:line) and interns it.
SiteId capture_site();

}  // namespace devcheck::sanitizer
