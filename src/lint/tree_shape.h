#pragma once
// A tree's shape, node by node: what tests/lint/grammar_test.cc and the lint
// fuzz harness compare between the parser as devcheck builds it and the
// parser as published (tree_compare.h). Only tree-sitter's API: compiled
// against either runtime (upstream/parser.cc includes it too).
#include <tree_sitter/api.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace devcheck::lint::detail {

// One line per node, in document order: depth, type, field, byte range,
// points, and whether it is named, extra, missing or holds an error.
inline std::vector<std::string> describe(const TSTree* tree) {
  std::vector<std::string> lines;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  int depth = 0;
  for (;;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const char* field = ts_tree_cursor_current_field_name(&cursor);
    const TSPoint start = ts_node_start_point(node);
    const TSPoint end = ts_node_end_point(node);
    std::ostringstream line;
    line << depth << ' ' << ts_node_type(node) << ' ' << (field != nullptr ? field : "-") << ' '
         << ts_node_start_byte(node) << '-' << ts_node_end_byte(node) << ' ' << start.row << ':'
         << start.column << '-' << end.row << ':' << end.column << ' '
         << (ts_node_is_named(node) ? 'n' : '.') << (ts_node_is_extra(node) ? 'x' : '.')
         << (ts_node_is_missing(node) ? 'm' : '.') << (ts_node_has_error(node) ? 'e' : '.');
    lines.push_back(line.str());
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return lines;
      }
      --depth;
    }
  }
}

// A hash of what describe() lists, without building the text.
inline std::uint64_t fingerprint(const TSTree* tree) {
  std::uint64_t hash = 1469598103934665603ULL;
  const auto mix = [&hash](std::uint64_t value) {
    hash ^= value;
    hash *= 1099511628211ULL;
  };
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  for (;;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    const TSPoint start = ts_node_start_point(node);
    const TSPoint end = ts_node_end_point(node);
    for (const std::uint64_t value :
         {uint64_t{ts_node_symbol(node)}, uint64_t{ts_tree_cursor_current_field_id(&cursor)},
          uint64_t{ts_node_start_byte(node)}, uint64_t{ts_node_end_byte(node)}, uint64_t{start.row},
          uint64_t{start.column}, uint64_t{end.row}, uint64_t{end.column},
          uint64_t{ts_node_is_named(node)} | uint64_t{ts_node_is_extra(node)} << 1U |
              uint64_t{ts_node_is_missing(node)} << 2U | uint64_t{ts_node_has_error(node)} << 3U}) {
      mix(value);
    }
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      mix(1);  // down
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return hash;
      }
      mix(2);  // up
    }
  }
}

}  // namespace devcheck::lint::detail
