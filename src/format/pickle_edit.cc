#include "format/pickle_edit.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "devcheck/format/error.h"
#include "format/internal_assert.h"

namespace devcheck::detail {

std::string pickle_unicode(std::string_view value) {
  std::string op = "X";
  const auto n = static_cast<std::uint32_t>(value.size());
  for (int i = 0; i < 4; ++i) op.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  op.append(value);
  return op;
}

std::vector<Edit> string_edits(const Pickle& p, const std::vector<StringChange>& changes,
                               const std::string& where) {
  std::map<std::uint64_t, const StringChange*> by_offset;
  for (const auto& c : changes) {
    DEVCHECK_INTERNAL_ASSERT(c.site.valid, "string_edits: site is not rewritable");
    by_offset.emplace(c.site.begin, &c);
  }
  for (const std::uint64_t source : p.dup_sources) {
    if (by_offset.count(source) != 0) {
      throw format::FormatError(fmt::format(
          "[devcheck] cannot rewrite {}: the str pushed at byte {} is copied by DUP, so the copy "
          "would change too. Fix: load and re-save it with torch.load + torch.save in a trusted "
          "environment",
          where, source));
    }
  }
  // What the op at `offset` pushes after the edits: its new value if changed.
  const auto pushed = [&](std::uint64_t offset, const std::string& old) -> const std::string& {
    const auto it = offset == kNoOffset ? by_offset.end() : by_offset.find(offset);
    return it == by_offset.end() ? old : it->second->value;
  };
  std::vector<Edit> edits;
  std::set<std::uint64_t> gets;
  for (const MemoGet& g : p.memo_gets) {
    gets.insert(g.begin);
    const std::string& old = p.at(g.node).text;
    const std::string& held = pushed(g.source, old);  // what its memo slot holds after the edits
    const std::string& wanted = pushed(g.begin, old);
    if (held != wanted) edits.push_back({g.begin, g.end, pickle_unicode(wanted)});
  }
  for (const auto& [offset, change] : by_offset) {
    if (gets.count(offset) != 0) continue;  // a memo get: settled above
    edits.push_back({offset, change->site.end, pickle_unicode(change->value)});
  }
  // Frame lengths would no longer match; frames are optional, so drop them.
  if (!edits.empty()) {
    for (const auto& [begin, end] : p.frames) edits.push_back({begin, end, ""});
  }
  return edits;
}

std::string apply_edits(std::string_view bytes, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(bytes.size() + 64 * edits.size());
  std::uint64_t at = 0;
  for (const auto& e : edits) {
    DEVCHECK_INTERNAL_ASSERT(e.begin >= at && e.end >= e.begin && e.end <= bytes.size(),
                             "apply_edits: overlapping or out-of-range edit");
    out.append(bytes.substr(at, e.begin - at));
    out += e.replacement;
    at = e.end;
  }
  out.append(bytes.substr(at));
  return out;
}

}  // namespace devcheck::detail
