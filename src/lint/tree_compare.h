#pragma once
// The grammar as devcheck builds it (src/lint/grammar_patch.cmake) held
// against the grammar exactly as npm unpacked it: both parse the same text
// and the trees must be the same, node for node. Used by
// tests/lint/grammar_test.cc and fuzz/lint_fuzz.cc, which link the grammar a
// second time as devcheck_tree_sitter_python_upstream (its symbols renamed).
#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lint/syntax.h"

extern "C" const TSLanguage* tree_sitter_python(void);
extern "C" const TSLanguage* devcheck_upstream_tree_sitter_python(void);

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

class GrammarPair {
 public:
  GrammarPair() : built_(ts_parser_new()), upstream_(ts_parser_new()) {
    if (!ts_parser_set_language(built_.get(), tree_sitter_python()) ||
        !ts_parser_set_language(upstream_.get(), devcheck_upstream_tree_sitter_python())) {
      throw std::runtime_error("libtree-sitter does not read the grammar's ABI");
    }
  }

  // "" when both grammars give `text` the same tree; otherwise where and how
  // the trees first differ.
  std::string difference(const std::string& text) {
    const std::unique_ptr<TSTree, TreeDeleter> built(ts_parser_parse_string(
        built_.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    const std::unique_ptr<TSTree, TreeDeleter> upstream(ts_parser_parse_string(
        upstream_.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
    if (fingerprint(built.get()) == fingerprint(upstream.get())) return "";
    const std::vector<std::string> a = describe(built.get());
    const std::vector<std::string> b = describe(upstream.get());
    for (std::size_t i = 0; i < a.size() || i < b.size(); ++i) {
      const std::string x = i < a.size() ? a[i] : "(no node)";
      const std::string y = i < b.size() ? b[i] : "(no node)";
      if (x != y) {
        std::ostringstream out;
        out << "node " << i << ": built " << x << ", upstream " << y;
        return out.str();
      }
    }
    return "trees that describe() lists alike and hash apart";
  }

 private:
  std::unique_ptr<TSParser, ParserDeleter> built_;
  std::unique_ptr<TSParser, ParserDeleter> upstream_;
};

}  // namespace devcheck::lint::detail
