// Byte offsets <-> LSP positions: UTF-8 in the buffer, UTF-16 on the wire.
#include "document.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace devcheck::lsp {
namespace {

// The bytes of the UTF-8 sequence that starts with `c` (1 for a stray byte)
// and the UTF-16 units it takes.
std::size_t sequence_length(unsigned char c) {
  if (c >= 0xF0 && c < 0xF8) return 4;
  if (c >= 0xE0) return c < 0xF0 ? 3 : 1;
  if (c >= 0xC0) return 2;
  return 1;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

}  // namespace

Document::Document(std::string uri, std::string text, int version)
    : uri_(std::move(uri)), path_(path_of_uri(uri_)), text_(std::move(text)), version_(version) {
  index();
}

void Document::index() {
  line_starts_.assign(1, 0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

void Document::set_text(std::string text) {
  text_ = std::move(text);
  index();
}

void Document::replace(Position start, Position end, std::string_view text) {
  std::size_t a = offset(start);
  std::size_t b = offset(end);
  if (b < a) std::swap(a, b);
  text_.replace(a, b - a, text);
  index();
}

std::size_t Document::offset(Position p) const {
  if (p.line < 0) return 0;
  if (static_cast<std::size_t>(p.line) >= line_starts_.size()) return text_.size();
  std::size_t at = line_starts_[static_cast<std::size_t>(p.line)];
  const std::size_t stop = static_cast<std::size_t>(p.line) + 1 < line_starts_.size()
                               ? line_starts_[static_cast<std::size_t>(p.line) + 1] - 1
                               : text_.size();
  int units = 0;
  while (at < stop && units < p.character) {
    const std::size_t n = sequence_length(static_cast<unsigned char>(text_[at]));
    units += n == 4 ? 2 : 1;
    at = std::min(stop, at + n);
  }
  return at;
}

Position Document::position(int line, int column) const {
  Position p;
  if (line < 1) return p;
  if (static_cast<std::size_t>(line) > line_starts_.size()) {
    p.line = static_cast<int>(line_starts_.size()) - 1;
    line = p.line + 1;
    column = static_cast<int>(line_text(line).size()) + 1;
  }
  p.line = line - 1;
  const std::string_view text = line_text(line);
  const std::size_t bytes =
      std::min(text.size(), static_cast<std::size_t>(std::max(column, 1) - 1));
  std::size_t at = 0;
  while (at < bytes) {
    const std::size_t n = sequence_length(static_cast<unsigned char>(text[at]));
    p.character += n == 4 ? 2 : 1;
    at += n;
  }
  return p;
}

Position Document::at(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<int>(it - line_starts_.begin());
  return position(line, static_cast<int>(offset - *std::prev(it)) + 1);
}

std::string_view Document::line_text(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  const std::size_t start = line_starts_[static_cast<std::size_t>(line) - 1];
  std::size_t stop = static_cast<std::size_t>(line) < line_starts_.size()
                         ? line_starts_[static_cast<std::size_t>(line)] - 1
                         : text_.size();
  if (stop > start && text_[stop - 1] == '\r') --stop;
  return std::string_view(text_).substr(start, stop - start);
}

std::string path_of_uri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.substr(0, kScheme.size()) != kScheme) return {};
  uri.remove_prefix(kScheme.size());
  // file://host/path: only the local host is ours.
  const auto slash = uri.find('/');
  if (slash == std::string_view::npos) return {};
  uri.remove_prefix(slash);
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_digit(uri[i + 1]) >= 0 &&
        hex_digit(uri[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(uri[i + 1]) * 16 + hex_digit(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string uri_of_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || std::string_view("/-._~").find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace devcheck::lsp
