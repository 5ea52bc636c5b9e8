#pragma once
// The grammar's symbol ids, named: one table per question a walk asks of a
// node's type ("which statement is it?", "which expression?"), looked up by
// the node's symbol id (an index) instead of comparing its type name (a
// strcmp each). Each table is built once, from the names the grammar gives
// its regular symbols (aliases too: a node's symbol is the one its type
// names). Thread-safe (built under a function-local static). Internal.

#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python();

namespace devcheck::lint::detail {

// symbol id -> the value of the first pair whose type name is the symbol's,
// `other` for the rest.
template <typename E, std::size_t N>
std::vector<E> symbol_table(const std::pair<const char*, E> (&names)[N], E other) {
  const TSLanguage* language = tree_sitter_python();
  std::vector<E> out(ts_language_symbol_count(language), other);
  for (uint32_t symbol = 0; symbol < out.size(); ++symbol) {
    const auto id = static_cast<TSSymbol>(symbol);
    if (ts_language_symbol_type(language, id) != TSSymbolTypeRegular) continue;
    const char* type = ts_language_symbol_name(language, id);
    for (const auto& [name, value] : names) {
      if (std::strcmp(type, name) == 0) {
        out[symbol] = value;
        break;
      }
    }
  }
  return out;
}

// A node's entry in a table made by symbol_table.
template <typename E>
E symbol_of(const std::vector<E>& table, TSNode node, E other) {
  const TSSymbol symbol = ts_node_symbol(node);
  return symbol < table.size() ? table[symbol] : other;
}

}  // namespace devcheck::lint::detail
