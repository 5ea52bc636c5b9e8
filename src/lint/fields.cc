// The grammar's field ids by name (syntax.h: field_id, fields).
#include <tree_sitter/api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "grammar.h"
#include "syntax.h"

namespace devcheck::lint::detail {

namespace {

// The grammar's field names in an open-addressed table, hashed by their
// length and end characters: rules look a field up by name on most nodes
// they read (std::unordered_map's hash of the whole name was 1% of lint's
// instructions on torch's tree).
class FieldTable {
 public:
  FieldTable() {
    const TSLanguage* language = tree_sitter_python();
    const uint32_t count = ts_language_field_count(language);
    if (count >= kSlots / 2) {
      // A grammar with this many fields needs a larger table.
      throw std::logic_error("[devcheck] the Python grammar has " + std::to_string(count) +
                             " fields, more than lint's field table holds");
    }
    for (uint32_t id = 1; id <= count; ++id) {
      const char* name = ts_language_field_name_for_id(language, static_cast<TSFieldId>(id));
      if (name == nullptr) continue;
      std::size_t slot = hash(name);
      while (slots_[slot].id != 0) slot = (slot + 1) % kSlots;
      slots_[slot] = {name, static_cast<TSFieldId>(id)};
    }
  }
  TSFieldId find(std::string_view name) const {
    if (name.empty()) return 0;
    for (std::size_t slot = hash(name);; slot = (slot + 1) % kSlots) {
      const Slot& s = slots_[slot];
      if (s.id == 0) return 0;
      if (s.name == name) return s.id;
    }
  }

 private:
  static constexpr std::size_t kSlots = 256;  // a power of two, over 4 times the fields
  struct Slot {
    std::string_view name;
    TSFieldId id = 0;
  };
  static std::size_t hash(std::string_view name) {
    const std::size_t first = static_cast<unsigned char>(name.front());
    const std::size_t last = static_cast<unsigned char>(name.back());
    return (name.size() * 131 + first * 31 + last) % kSlots;
  }
  Slot slots_[kSlots];
};

}  // namespace

TSFieldId field_id(std::string_view name) {
  static const FieldTable table;
  return table.find(name);
}

const FieldIds& fields() {
  static const FieldIds ids = {
      field_id("alias"),      field_id("alternative"), field_id("argument"),
      field_id("arguments"),  field_id("attribute"),   field_id("body"),
      field_id("condition"),  field_id("consequence"), field_id("function"),
      field_id("left"),       field_id("name"),        field_id("object"),
      field_id("parameters"), field_id("right"),       field_id("subscript"),
      field_id("type"),       field_id("value")};
  return ids;
}

}  // namespace devcheck::lint::detail
