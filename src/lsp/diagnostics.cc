// Findings -> diagnostics and code actions.
#include "diagnostics.h"

#include <cctype>
#include <set>
#include <string>

namespace devcheck::lsp {
namespace {

constexpr int kError = 1;
constexpr int kWarning = 2;

nlohmann::json position_json(Position p) { return {{"line", p.line}, {"character", p.character}}; }

nlohmann::json range_json(Position a, Position b) {
  return {{"start", position_json(a)}, {"end", position_json(b)}};
}

// The lines other than the finding's own that its message names ("line
// 12"): where the stray tensor was made, or where it meets the others.
std::vector<int> named_lines(const lint::Finding& f, int line_count) {
  std::vector<int> out;
  std::set<int> seen{f.line};
  static constexpr std::string_view kLine = "line ";
  const std::string& m = f.message;
  for (auto at = m.find(kLine); at != std::string::npos; at = m.find(kLine, at + 1)) {
    if (at > 0 && std::isalpha(static_cast<unsigned char>(m[at - 1])) != 0) continue;
    std::size_t i = at + kLine.size();
    int n = 0;
    while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i])) != 0 && n < 10000000) {
      n = n * 10 + (m[i++] - '0');
    }
    if (i > at + kLine.size() && n >= 1 && n <= line_count && seen.insert(n).second) {
      out.push_back(n);
    }
  }
  return out;
}

// The whole of a line but its indentation.
nlohmann::json line_range(const Document& doc, int line) {
  const std::string_view text = doc.line_text(line);
  const auto first = text.find_first_not_of(" \t");
  const int column = first == std::string_view::npos ? 1 : static_cast<int>(first) + 1;
  return range_json(doc.position(line, column),
                    doc.position(line, static_cast<int>(text.size()) + 1));
}

nlohmann::json workspace_edit(const Document& doc, nlohmann::json edits) {
  return {{"changes", {{doc.uri(), std::move(edits)}}}};
}

}  // namespace

nlohmann::json diagnostic(const lint::Finding& f, const Document& doc) {
  Position start = doc.position(f.line, f.column);
  Position end = doc.position(f.end_line, f.end_column);
  if (end.line < start.line || (end.line == start.line && end.character <= start.character)) {
    // A point (DC100 at the end of a file): the rest of its line.
    end = doc.position(f.line, static_cast<int>(doc.line_text(f.line).size()) + 1);
    if (end.character <= start.character) end.character = start.character + 1;
  }
  nlohmann::json d = {{"range", range_json(start, end)},
                      {"severity", f.rule == "DC100" ? kError : kWarning},
                      {"code", f.rule},
                      {"codeDescription", {{"href", lint::rule_url(f.rule)}}},
                      {"source", "devcheck"},
                      {"message", f.message}};
  nlohmann::json related = nlohmann::json::array();
  for (const int line : named_lines(f, doc.line_count())) {
    const std::string_view text = doc.line_text(line);
    const auto first = text.find_first_not_of(" \t");
    related.push_back(
        {{"location", {{"uri", doc.uri()}, {"range", line_range(doc, line)}}},
         {"message", "line " + std::to_string(line) + ": " +
                         std::string(first == std::string_view::npos ? "" : text.substr(first))}});
  }
  if (!related.empty()) d["relatedInformation"] = std::move(related);
  return d;
}

nlohmann::json disable_edit(const Document& doc, int line, const std::string& rule) {
  const std::string_view text = doc.line_text(line);
  static constexpr std::string_view kMarker = "# devcheck: ignore[";
  const auto marker = text.find(kMarker);
  const auto close = marker == std::string_view::npos ? marker : text.find(']', marker);
  if (close != std::string_view::npos) {
    const Position at = doc.position(line, static_cast<int>(close) + 1);
    return {{"range", range_json(at, at)}, {"newText", ", " + rule}};
  }
  const Position at = doc.position(line, static_cast<int>(text.size()) + 1);
  return {{"range", range_json(at, at)}, {"newText", "  # devcheck: ignore[" + rule + "]"}};
}

nlohmann::json code_actions(const std::vector<lint::Finding>& findings, const Document& doc,
                            int first, int last) {
  nlohmann::json actions = nlohmann::json::array();
  for (const lint::Finding& f : findings) {
    if (f.end_line - 1 < first || f.line - 1 > last) continue;
    const nlohmann::json diag = nlohmann::json::array({diagnostic(f, doc)});
    if (f.fix && !f.fix->edits.empty()) {
      nlohmann::json edits = nlohmann::json::array();
      for (const lint::Edit& e : f.fix->edits) {
        edits.push_back({{"range", range_json(doc.at(e.start_byte), doc.at(e.end_byte))},
                         {"newText", e.content}});
      }
      actions.push_back({{"title", f.rule + ": " + f.fix->message},
                         {"kind", "quickfix"},
                         {"isPreferred", true},
                         {"diagnostics", diag},
                         {"edit", workspace_edit(doc, std::move(edits))}});
    }
    if (f.rule == "DC100") continue;  // a syntax error cannot be switched off
    actions.push_back({{"title", "Disable " + f.rule + " for this line"},
                       {"kind", "quickfix"},
                       {"diagnostics", diag},
                       {"edit", workspace_edit(doc, nlohmann::json::array(
                                                        {disable_edit(doc, f.line, f.rule)}))}});
  }
  return actions;
}

}  // namespace devcheck::lsp
