#pragma once
// devcheck lint: finds device bugs in Python sources before they run
// (docs/lint.md). Torch-free: it parses Python with tree-sitter and never
// imports or runs what it reads.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::lint {

/// One rule: its id (`DC105`), a short name and the one-line summary that
/// docs/lint.md and SARIF show.
struct RuleInfo {
  std::string_view id;
  std::string_view name;
  std::string_view summary;
  /// Whether `--fix` may apply this rule's fixes (they never change behaviour).
  bool fixable = false;
};

/// Every rule devcheck lint knows, DC100 (syntax error) first, sorted by id.
/// Thread-safe (a constant table).
DEVCHECK_API const std::vector<RuleInfo>& rules();

/// Where a rule is documented: docs/lint.md's section on it, online (what
/// SARIF's helpUri and the language server's codeDescription link to).
DEVCHECK_API std::string rule_url(std::string_view id);

/// One replacement of source bytes [start_byte, end_byte) by `content`.
struct Edit {
  std::size_t start_byte = 0;
  std::size_t end_byte = 0;
  std::string content;
};

/// A safe rewrite that removes a finding.
struct Fix {
  /// What the fix does, e.g. `replace with torch.amp.autocast("cuda")`.
  std::string message;
  std::vector<Edit> edits;
};

/// One finding. Lines and columns are 1-based; columns count bytes.
struct Finding {
  std::string path;
  int line = 0;
  int column = 0;
  int end_line = 0;
  int end_column = 0;
  std::string rule;
  std::string message;
  std::optional<Fix> fix;
  /// In a notebook (.ipynb): the 1-based cell the finding is in, counting
  /// every cell; `line`, `column`, `end_line` and `end_column` then count
  /// within that cell's source, and the fix's edits are byte ranges of the
  /// notebook's file. 0 for a Python file.
  int cell = 0;
  /// In a notebook: where the finding starts in the .ipynb file read as text
  /// (1-based line and byte column; what SARIF shows). 0 for a Python file.
  int file_line = 0;
  int file_column = 0;
};

/// What to check and how. Defaults lint every rule, on all cores.
struct LintOptions {
  /// Rule ids or prefixes to check (`DC1`, `DC105`). Empty: all. Default empty.
  std::vector<std::string> select;
  /// Rule ids or prefixes never reported; wins over `select`. Default empty.
  std::vector<std::string> ignore;
  /// Files linted at once. 0: one per hardware thread. Default 0.
  unsigned jobs = 0;
  /// Read `[tool.devcheck.lint]` from the nearest pyproject.toml above each
  /// file and honour its select, ignore, per-file-ignores and exclude.
  /// Default true.
  bool use_config = true;
  /// Honour .gitignore files in the folders walked. Default true.
  bool respect_gitignore = true;
};

/// The outcome of a lint run. Not thread-safe to mutate; const use is.
class DEVCHECK_API LintReport {
 public:
  /// Findings sorted by path, line, column and rule.
  const std::vector<Finding>& findings() const { return findings_; }
  /// Inputs that could not be read, each `path: reason`.
  const std::vector<std::string>& errors() const { return errors_; }
  /// Python files read.
  std::size_t files_checked() const { return files_checked_; }
  bool has_findings() const { return !findings_.empty(); }
  bool has_errors() const { return !errors_.empty(); }

  /// `path:line:col: DC101 message` lines (`nb.ipynb:cell 5:3:9: ...` in a
  /// notebook), then a summary line.
  std::string to_text() const;
  /// A JSON array of findings: path, line, column, end_line, end_column,
  /// rule, message and, when there is one, fix {message, edits}; in a
  /// notebook also cell (lines and columns count within it).
  std::string to_json() const;
  /// SARIF 2.1.0, one run of tool `devcheck`, every rule described.
  std::string to_sarif() const;
  /// Count per rule, most frequent first: `  12  DC105  name`.
  std::string statistics() const;

  /// Adds findings and errors (used by lint_paths; sorts on finish()).
  void add(Finding finding) { findings_.push_back(std::move(finding)); }
  void add_error(std::string error) { errors_.push_back(std::move(error)); }
  void add_file() { ++files_checked_; }
  /// Sorts findings and errors into report order.
  void finish();

 private:
  std::vector<Finding> findings_;
  std::vector<std::string> errors_;
  std::size_t files_checked_ = 0;
};

/// Lints one Python source held in memory; `path` names it in findings and
/// picks per-file ignores. Never throws on bad Python: a syntax error is a
/// DC100 finding and the rest of the file is still checked. Thread-safe.
DEVCHECK_API std::vector<Finding> lint_source(std::string_view source, const std::string& path,
                                              const LintOptions& options = {});

/// Lints files and folders (folders recursively, `*.py`, `*.pyi` and
/// `*.ipynb`: a notebook's code cells as one program, magics left out).
/// Unreadable inputs are listed in errors(), never thrown. Thread-safe.
DEVCHECK_API LintReport lint_paths(const std::vector<std::string>& paths,
                                   const LintOptions& options = {});

/// `source` with the fixes of `findings` applied (overlapping ones skipped).
DEVCHECK_API std::string apply_fixes(std::string_view source, const std::vector<Finding>& findings);

/// A unified diff (`--- a/path`, `+++ b/path`, 3 lines of context) from
/// `before` to `after`; empty when they are equal.
DEVCHECK_API std::string unified_diff(const std::string& path, std::string_view before,
                                      std::string_view after);

/// What fix_paths did.
struct FixResult {
  /// Files rewritten (or, with `write` false, that would be).
  std::vector<std::string> changed;
  /// Unified diffs of every change, in path order.
  std::string diff;
  /// Findings that remain after fixing, and unreadable inputs.
  LintReport remaining;
};

/// Lints `paths`, applies every safe fix, and when `write` is true rewrites
/// each changed file atomically (a temporary file renamed over it: a failed
/// run leaves the file as it was). Files are rewritten only by fixable rules
/// selected in `options`. Thread-safe for distinct files.
DEVCHECK_API FixResult fix_paths(const std::vector<std::string>& paths, const LintOptions& options,
                                 bool write);

}  // namespace devcheck::lint
