#pragma once
// Writing pickle bytes: the one op devcheck writes (a BINUNICODE str), and
// the edits that change the strs a scanned pickle pushes (remap's storage
// locations and dict keys) while every other op keeps pushing what it
// pushed. Pure functions; thread-safe.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/export.h"
#include "format/pickle_scan.h"

namespace devcheck::detail {

// The pickle op that pushes `value` as a str (BINUNICODE).
DEVCHECK_API std::string pickle_unicode(std::string_view value);

struct Edit {
  std::uint64_t begin = 0, end = 0;
  std::string replacement;
};

// A str op to change: the valid Site of a scanned pickle and its new value.
struct StringChange {
  Site site;
  std::string value;
};

// Edits after which the op at each changed site (the first change wins for a
// site named twice) pushes its new str value, and every other op of `p` pushes the
// value it pushed before. A changed op becomes one BINUNICODE; a memo slot it
// filled then holds the new value, so a memo get that must still see the old
// one (e.g. a user's config["device"] sharing a storage's location string)
// becomes a BINUNICODE of the old value, and a get that must see a new value
// its slot does not hold becomes a BINUNICODE of that. The edits add no other
// kind of op (no POP, no memo slot) and drop every FRAME, so a pickle that
// torch.load(weights_only=True) reads still reads after them. Throws
// FormatError naming `where` when a changed op's value was copied by DUP
// (rewriting it would change the copy too).
std::vector<Edit> string_edits(const Pickle& p, const std::vector<StringChange>& changes,
                               const std::string& where);

// Applies non-overlapping edits (any order) to `bytes`.
std::string apply_edits(std::string_view bytes, std::vector<Edit> edits);

}  // namespace devcheck::detail
