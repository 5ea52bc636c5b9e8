// DC100 syntax-error: where the parser lost its way (or Python newer than
// the grammar); the rest of the file is still checked.
#include <cctype>
#include <string>
#include <string_view>

#include "../rule.h"
#include "../stack.h"

namespace devcheck::lint::detail {
namespace {

// The line (from its start to its end) where `node` starts.
std::string_view line_at(std::string_view text, uint32_t at) {
  const std::size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t from = start == std::string_view::npos || at == 0 ? 0 : start + 1;
  const std::size_t end = text.find('\n', at);
  return text.substr(from, (end == std::string_view::npos ? text.size() : end) - from);
}

bool word_before(std::string_view line, std::size_t at, std::string_view word) {
  while (at > 0 && line[at - 1] == ' ') --at;
  return at >= word.size() && line.substr(at - word.size(), word.size()) == word &&
         (at == word.size() ||
          !(std::isalnum(static_cast<unsigned char>(line[at - word.size() - 1])) ||
            line[at - word.size() - 1] == '_'));
}

// A starred item of a tuple written without parentheses (`a, *b = x, *[]`,
// `return g, *rest`, `for x in *a, b:`; valid since Python 3.5/3.8/3.9),
// which tree-sitter-python 0.23.6's expression_list does not take: a `*`
// outside brackets, after a comma, `=`, `in`, `return` or `yield`, before an
// operand, on a line with a comma.
bool bare_starred_item(std::string_view line) {
  if (line.find(',') == std::string_view::npos) return false;
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quote != 0) {
      if (ch == '\\')
        ++i;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    if (ch == '#') return false;
    if (ch == '"' || ch == '\'') quote = ch;
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') --depth;
    if (ch != '*' || depth != 0 || i + 1 >= line.size() || line[i + 1] == '*') continue;
    std::size_t next = i + 1;
    while (next < line.size() && line[next] == ' ') ++next;
    if (next >= line.size()) continue;
    const char operand = line[next];
    if (!(std::isalnum(static_cast<unsigned char>(operand)) || operand == '_' || operand == '(' ||
          operand == '[' || operand == '{')) {
      continue;
    }
    std::size_t before = i;
    while (before > 0 && line[before - 1] == ' ') --before;
    const char prev = before == 0 ? '\0' : line[before - 1];
    if (prev == ',' ||
        (prev == '=' && (before < 2 || std::string_view("=!<>").find(line[before - 2]) ==
                                           std::string_view::npos)) ||
        word_before(line, i, "in") || word_before(line, i, "return") ||
        word_before(line, i, "yield")) {
      return true;
    }
  }
  return false;
}

// A Python 3.14 template string (PEP 750: t"...", rt'...'), whose prefix
// tree-sitter-python 0.23.6 does not know: the prefix alone in an ERROR,
// a quote right after it.
bool template_string_prefix(std::string_view text, TSNode error) {
  const uint32_t start = ts_node_start_byte(error);
  const uint32_t end = ts_node_end_byte(error);
  if (end >= text.size() || (text[end] != '"' && text[end] != '\'')) return false;
  std::string prefix(text.substr(start, end - start));
  for (char& ch : prefix) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return prefix == "t" || prefix == "tr" || prefix == "rt";
}

// Valid Python the grammar does not parse (docs/lint.md, "Syntax errors on
// valid code"): not reported; the statement is not checked.
bool known_grammar_gap(std::string_view text, TSNode error) {
  return bare_starred_item(line_at(text, ts_node_start_byte(error))) ||
         (is(error, "ERROR") && template_string_prefix(text, error));
}

// The first error (an ERROR node or a missing token) that is not a known
// gap of the grammar, in the order of the text.
TSNode first_error(std::string_view text, TSNode node) {
  // Deeper than the stack allows (stack.h): none reported from here.
  if (stack_nearly_exhausted()) return TSNode{};
  if (ts_node_is_missing(node) || is(node, "ERROR")) {
    if (!known_grammar_gap(text, node)) return node;
    if (ts_node_is_missing(node)) return TSNode{};
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_child(node, i);
    if (!ts_node_has_error(child)) continue;
    const TSNode found = first_error(text, child);
    if (!ts_node_is_null(found)) return found;
  }
  return TSNode{};
}

void check(const RuleContext& c) {
  if (!ts_node_has_error(c.source.root())) return;
  const TSNode error = first_error(c.source.text(), c.source.root());
  if (ts_node_is_null(error)) return;
  c.sink.report(error, "DC100",
                std::string(ts_node_is_missing(error)
                                ? "syntax error: missing " + std::string(ts_node_type(error))
                                : "syntax error") +
                    "; the code around it is not checked");
}

}  // namespace

extern const Rule kRuleDC100;
const Rule kRuleDC100 = {
    {"DC100", "syntax-error", "The file does not parse; the rest of it is still checked.", false},
    "def f(:\n    pass\n",
    "def f():\n    pass\n",
    check};

}  // namespace devcheck::lint::detail
