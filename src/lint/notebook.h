#pragma once
// Jupyter notebooks (.ipynb) in devcheck lint: the code cells as one program
// (a name defined in cell 2 is known in cell 5), IPython magics and shell
// lines left out, and every finding, message and fix mapped back to the cell
// and to the notebook's JSON bytes (a fix edits the source strings in place
// and keeps every other byte of the file). Internal.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/lint.h"

namespace devcheck::lint::detail {

// Whether `path` names a notebook (ends in .ipynb).
bool is_notebook(std::string_view path);

// One JSON string literal of a cell's "source" in the notebook's bytes.
struct SourceString {
  std::size_t raw_begin = 0;  // the byte after its opening quote
  std::size_t raw_end = 0;    // its closing quote
  std::string text;           // decoded
  // raw_of[i]: the file byte where decoded byte i starts (size text.size() + 1).
  std::vector<std::size_t> raw_of;
};

// A code cell: its 1-based place among all the notebook's cells, and its
// source as the notebook stores it (one string, or a list of lines).
struct CodeCell {
  int number = 0;
  std::vector<SourceString> strings;
  std::string text;  // the strings joined
};

// One line of the program made from the cells.
struct ProgramLine {
  int cell = 0;                   // CodeCell::number
  int line = 0;                   // 1-based within the cell
  std::size_t program_begin = 0;  // where it starts in the program
  std::size_t cell_begin = 0;     // where it starts in the cell's text
  std::size_t cell_index = 0;     // into Notebook::cells
  bool left_out = false;          // a magic or shell line (the program has `pass`)
};

// A parsed notebook. parse() fills it or says why the text is not one.
class Notebook {
 public:
  // Reads `json` (a notebook's bytes). False with `error` and the byte
  // `error_at` where the text stops being a notebook.
  bool parse(std::string_view json, std::string& error, std::size_t& error_at);

  const std::string& program() const { return program_; }
  const std::vector<CodeCell>& cells() const { return cells_; }
  const std::vector<ProgramLine>& lines() const { return lines_; }

  // The program's line `line` (1-based) or nullptr.
  const ProgramLine* line(int line) const;
  // The file byte of program byte `at`; `at_end` picks, at the seam of two
  // strings, the end of the first (for an edit's end). False when `at` is on
  // a left-out line.
  bool file_offset(std::size_t at, bool at_end, std::size_t& out) const;
  // `finding` (the program's) in the notebook's terms: cell, line and column
  // in the cell, the file's line and column, "line N" in its message as
  // "cell C, line L", its fix as edits of the file (dropped when it touches a
  // left-out line or spans two cells). `json` is the notebook's bytes.
  Finding map(Finding finding, std::string_view json) const;

 private:
  void build_program();
  std::vector<CodeCell> cells_;
  std::vector<ProgramLine> lines_;
  std::string program_;
};

// `text` JSON-escaped as the contents of a string literal (no quotes).
std::string json_escape(std::string_view text);

// The findings of a notebook's bytes, in the notebook's terms (Notebook::map),
// sorted by cell, line, column and rule. A text that is not a notebook is one
// DC100 finding at the byte where it stops being one. Thread-safe.
std::vector<Finding> check_notebook(std::string_view json, const std::string& path,
                                    const std::vector<std::string>& select,
                                    const std::vector<std::string>& ignore);

// check_notebook for a notebook's path, check_source for any other.
std::vector<Finding> check_file(std::string_view text, const std::string& path,
                                const std::vector<std::string>& select,
                                const std::vector<std::string>& ignore);

}  // namespace devcheck::lint::detail
