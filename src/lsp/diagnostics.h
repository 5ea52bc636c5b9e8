#pragma once
// Lint findings as the Language Server Protocol shows them: diagnostics
// (code, severity, a link to the rule's docs, the second line a finding
// names as related information) and code actions (each fix as a quick fix,
// and "disable DCnnn for this line"). Internal.

#include <nlohmann/json.hpp>
#include <vector>

#include "devcheck/lint.h"
#include "document.h"

namespace devcheck::lsp {

// The diagnostic of a finding in `doc` (the text it was linted from).
nlohmann::json diagnostic(const lint::Finding& finding, const Document& doc);

// The code actions for the findings whose lines meet lines [first, last]
// (0-based, as the request's range has them): each fix as a quick fix (the
// preferred one), then a "disable" action that adds or extends the line's
// `# devcheck: ignore[...]` comment.
nlohmann::json code_actions(const std::vector<lint::Finding>& findings, const Document& doc,
                            int first, int last);

// The text edit that makes `line` (1-based) carry `# devcheck: ignore[rule]`.
nlohmann::json disable_edit(const Document& doc, int line, const std::string& rule);

}  // namespace devcheck::lsp
