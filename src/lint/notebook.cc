// Notebooks: the cells' source strings found in the JSON bytes (their byte
// ranges kept), the program made from the code cells, findings mapped back.
#include "notebook.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "checker.h"

namespace devcheck::lint::detail {
namespace {

// Walks JSON text that nlohmann::json has already accepted: every value is
// well formed, so the walk only needs to stay inside the text.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  void space() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  char peek() {
    space();
    return i_ < s_.size() ? s_[i_] : '\0';
  }

  // A string literal at the cursor, decoded; `out` gets its bytes and map.
  void string(SourceString& out) {
    space();
    ++i_;  // the opening quote
    out.raw_begin = i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      const std::size_t start = i_;
      if (s_[i_] != '\\') {
        out.text += s_[i_++];
        out.raw_of.push_back(start);
        continue;
      }
      const char e = i_ + 1 < s_.size() ? s_[i_ + 1] : '\0';
      i_ += 2;
      if (e == 'u') {
        std::uint32_t code = hex4();
        if (code >= 0xD800 && code < 0xDC00 && i_ + 1 < s_.size() && s_[i_] == '\\' &&
            s_[i_ + 1] == 'u') {
          i_ += 2;
          const std::uint32_t low = hex4();
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        const std::size_t before = out.text.size();
        utf8(code, out.text);
        out.raw_of.insert(out.raw_of.end(), out.text.size() - before, start);
        continue;
      }
      static constexpr std::string_view kFrom = "\"\\/bfnrt";
      static constexpr std::string_view kTo = "\"\\/\b\f\n\r\t";
      const auto at = kFrom.find(e);
      out.text += at == std::string_view::npos ? e : kTo[at];
      out.raw_of.push_back(start);
    }
    out.raw_end = i_;
    out.raw_of.push_back(i_);
    ++i_;  // the closing quote
  }

  std::string string() {
    SourceString s;
    string(s);
    return std::move(s.text);
  }

  void skip_value() {
    const char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      ++i_;
      const char close = c == '{' ? '}' : ']';
      if (eat(close)) return;
      do {
        if (c == '{') {
          string();
          eat(':');
        }
        skip_value();
      } while (eat(','));
      eat(close);
    } else {
      while (i_ < s_.size() &&
             std::string_view(",]} \n\r\t").find(s_[i_]) == std::string_view::npos) {
        ++i_;
      }
    }
  }

  std::size_t at() const { return i_; }

 private:
  std::uint32_t hex4() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4 && i_ < s_.size(); ++k, ++i_) {
      const char h = s_[i_];
      v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
  }
  static void utf8(std::uint32_t c, std::string& out) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// IPython's own syntax, which is not Python: `%magic`, `!shell`, `x = !cmd`,
// `x = %magic`, `obj?` and `??obj` help.
bool is_magic_line(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  const char c = line[first];
  if (c == '%' || c == '!' || c == '?') return true;
  const auto last = line.find_last_not_of(" \t\r\n");
  if (line[last] == '?' && line.find('#') == std::string_view::npos) return true;
  // NAME = !cmd, NAME = %magic
  std::size_t i = first;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) != 0 ||
                             line[i] == '_' || line[i] == '.')) {
    ++i;
  }
  if (i == first) return false;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size() || line[i] != '=') return false;
  ++i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i < line.size() && (line[i] == '!' || line[i] == '%');
}

// Whether a cell magic's body (`name` is what follows %%) is Python that
// IPython runs as it is.
bool runs_python(std::string_view name) {
  for (const std::string_view magic : {"devcheck", "time", "timeit", "capture", "prun"}) {
    if (name.substr(0, magic.size()) == magic &&
        (name.size() == magic.size() ||
         std::isspace(static_cast<unsigned char>(name[magic.size()])) != 0)) {
      return true;
    }
  }
  return false;
}

// 1-based line and column of byte `at` in `text`.
std::pair<int, int> line_column(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  const std::string_view before = text.substr(0, at);
  const int line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  const auto nl = before.rfind('\n');
  const std::size_t column = nl == std::string_view::npos ? at : at - nl - 1;
  return {line, static_cast<int>(column) + 1};
}

}  // namespace

bool is_notebook(std::string_view path) {
  constexpr std::string_view kExt = ".ipynb";
  return path.size() >= kExt.size() && path.substr(path.size() - kExt.size()) == kExt;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

bool Notebook::parse(std::string_view json, std::string& error, std::size_t& error_at) {
  cells_.clear();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::parse_error& e) {
    error = fmt::format("the notebook is not valid JSON: {}", e.what());
    error_at = e.byte == 0 ? 0 : e.byte - 1;
    return false;
  }
  error_at = 0;
  if (!doc.is_object() || !doc.contains("cells") || !doc["cells"].is_array()) {
    error = "not a Jupyter notebook (nbformat 4): the JSON has no \"cells\" list";
    return false;
  }
  Scanner scan(json);
  scan.eat('{');
  bool found = false;
  while (!found && scan.peek() == '"') {
    const std::string key = scan.string();
    scan.eat(':');
    if (key != "cells") {
      scan.skip_value();
      scan.eat(',');
      continue;
    }
    found = true;
    scan.eat('[');
    int number = 0;
    while (scan.peek() == '{') {
      ++number;
      scan.eat('{');
      CodeCell cell;
      cell.number = number;
      bool code = false;
      bool have_source = false;
      while (scan.peek() == '"') {
        const std::string field = scan.string();
        scan.eat(':');
        if (field == "cell_type" && scan.peek() == '"') {
          code = scan.string() == "code";
        } else if (field == "source" && (scan.peek() == '"' || scan.peek() == '[')) {
          have_source = true;
          const bool list = scan.eat('[');
          while (scan.peek() == '"') {
            SourceString s;
            scan.string(s);
            cell.text += s.text;
            cell.strings.push_back(std::move(s));
            if (!list || !scan.eat(',')) break;
          }
          if (list) scan.eat(']');
        } else {
          scan.skip_value();
        }
        scan.eat(',');
      }
      scan.eat('}');
      scan.eat(',');
      if (code && have_source) cells_.push_back(std::move(cell));
    }
  }
  build_program();
  return true;
}

void Notebook::build_program() {
  program_.clear();
  lines_.clear();
  for (std::size_t c = 0; c < cells_.size(); ++c) {
    const std::string& text = cells_[c].text;
    // A cell magic makes the whole cell IPython's (%%bash, %%html), except
    // those whose body is Python run as it is (%%time, %%devcheck).
    const auto first = text.find_first_not_of(" \t\r\n");
    const bool cell_magic = first != std::string::npos && text.compare(first, 2, "%%") == 0 &&
                            !runs_python(std::string_view(text).substr(first + 2));
    std::size_t begin = 0;
    int number = 0;
    // A magic or shell line that ends with a backslash goes on in the next
    // line (`!pip install \` / `    torch`): IPython joins them first.
    bool continued = false;
    while (begin < text.size()) {
      const auto nl = text.find('\n', begin);
      const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
      const std::string_view line(text.data() + begin, end - begin);
      ProgramLine p{cells_[c].number, ++number, program_.size(), begin, c, false};
      const bool continuation = continued;
      p.left_out = cell_magic || continuation || is_magic_line(line);
      if (p.left_out && !cell_magic) {
        const auto last = line.find_last_not_of(" \t\r\n");
        continued = last != std::string_view::npos && line[last] == '\\';
      }
      if (continuation) {
        program_ += '\n';  // the magic's own `pass` stands for it
      } else if (p.left_out) {
        const auto indent = cell_magic ? 0 : line.find_first_not_of(" \t");
        program_.append(line.substr(0, indent));
        program_ += "pass\n";
      } else {
        program_.append(line);
        if (nl == std::string::npos) program_ += '\n';
      }
      lines_.push_back(p);
      begin = end;
    }
  }
}

const ProgramLine* Notebook::line(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > lines_.size()) return nullptr;
  return &lines_[static_cast<std::size_t>(line) - 1];
}

bool Notebook::file_offset(std::size_t at, bool at_end, std::size_t& out) const {
  if (lines_.empty()) return false;
  auto it =
      std::upper_bound(lines_.begin(), lines_.end(), at,
                       [](std::size_t a, const ProgramLine& l) { return a < l.program_begin; });
  if (it == lines_.begin()) return false;
  --it;
  // An edit's end at the very start of a line is the end of the line before.
  if (at_end && it != lines_.begin() && at == it->program_begin &&
      std::prev(it)->cell_index == it->cell_index) {
    --it;
    if (it->left_out) return false;
    at = std::next(it)->program_begin;
  }
  if (it->left_out) return false;
  const CodeCell& cell = cells_[it->cell_index];
  std::size_t in_cell = it->cell_begin + (at - it->program_begin);
  in_cell = std::min(in_cell, cell.text.size());
  std::size_t base = 0;
  for (std::size_t k = 0; k < cell.strings.size(); ++k) {
    const SourceString& s = cell.strings[k];
    const std::size_t size = s.text.size();
    const bool last = k + 1 == cell.strings.size();
    if (in_cell < base + size || (in_cell == base + size && (at_end || last))) {
      out = s.raw_of[in_cell - base];
      return true;
    }
    base += size;
  }
  return false;
}

Finding Notebook::map(Finding f, std::string_view json) const {
  const ProgramLine* start = line(f.line);
  const ProgramLine* end = line(f.end_line);
  if (start == nullptr) return f;
  f.cell = start->cell;
  f.line = start->line;
  if (end != nullptr && end->cell == start->cell) {
    f.end_line = end->line;
  } else {
    f.end_line = f.line;
    f.end_column = f.column;
  }
  std::size_t raw = 0;
  const std::size_t program_at = start->program_begin + static_cast<std::size_t>(f.column - 1);
  if (file_offset(program_at, false, raw)) {
    std::tie(f.file_line, f.file_column) = line_column(json, raw);
  }
  // "line 12" in the message names a program line: say which cell's.
  std::string message;
  std::size_t i = 0;
  static constexpr std::string_view kLine = "line ";
  while (i < f.message.size()) {
    const auto at = f.message.find(kLine, i);
    const bool word = at != std::string::npos &&
                      (at == 0 || std::isalpha(static_cast<unsigned char>(f.message[at - 1])) == 0);
    std::size_t digits = at == std::string::npos ? 0 : at + kLine.size();
    while (digits < f.message.size() &&
           std::isdigit(static_cast<unsigned char>(f.message[digits])) != 0) {
      ++digits;
    }
    if (at == std::string::npos) {
      message.append(f.message, i, std::string::npos);
      break;
    }
    const std::size_t first_digit = at + kLine.size();
    const ProgramLine* named =
        word && digits > first_digit && digits - first_digit <= 9
            ? line(std::stoi(f.message.substr(first_digit, digits - first_digit)))
            : nullptr;
    message.append(f.message, i, at - i);
    if (named != nullptr) {
      message += fmt::format("cell {}, line {}", named->cell, named->line);
      i = digits;
    } else {
      message += kLine;
      i = at + kLine.size();
    }
  }
  f.message = std::move(message);
  if (f.fix) {
    bool ok = true;
    for (Edit& e : f.fix->edits) {
      std::size_t from = 0;
      std::size_t to = 0;
      const ProgramLine* a = nullptr;
      const ProgramLine* b = nullptr;
      for (const ProgramLine& l : lines_) {
        if (l.program_begin <= e.start_byte) a = &l;
        if (l.program_begin < e.end_byte ||
            (e.end_byte == e.start_byte && l.program_begin <= e.end_byte)) {
          b = &l;
        }
      }
      ok = ok && a != nullptr && b != nullptr && a->cell_index == b->cell_index &&
           file_offset(e.start_byte, false, from) &&
           file_offset(e.end_byte, e.end_byte != e.start_byte, to) && from <= to;
      if (!ok) break;
      e.start_byte = from;
      e.end_byte = to;
      e.content = json_escape(e.content);
    }
    if (!ok) f.fix.reset();
  }
  return f;
}

std::vector<Finding> check_notebook(std::string_view json, const std::string& path,
                                    const std::vector<std::string>& select,
                                    const std::vector<std::string>& ignore) {
  Notebook notebook;
  std::string error;
  std::size_t error_at = 0;
  if (!notebook.parse(json, error, error_at)) {
    if (!selected("DC100", select, ignore)) return {};
    Finding f;
    f.path = path;
    std::tie(f.line, f.column) = line_column(json, error_at);
    f.end_line = f.line;
    f.end_column = f.column;
    f.file_line = f.line;
    f.file_column = f.column;
    f.rule = "DC100";
    f.message = error;
    return {f};
  }
  std::vector<Finding> out;
  for (Finding& f : check_source(notebook.program(), path, select, ignore)) {
    out.push_back(notebook.map(std::move(f), json));
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.cell, a.line, a.column, a.rule) < std::tie(b.cell, b.line, b.column, b.rule);
  });
  return out;
}

std::vector<Finding> check_file(std::string_view text, const std::string& path,
                                const std::vector<std::string>& select,
                                const std::vector<std::string>& ignore) {
  return is_notebook(path) ? check_notebook(text, path, select, ignore)
                           : check_source(text, path, select, ignore);
}

}  // namespace devcheck::lint::detail
