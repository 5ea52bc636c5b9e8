#pragma once
// An open editor buffer: its text, and LSP positions (line, UTF-16 code
// unit) converted to and from byte offsets and lint's 1-based byte columns.
// Internal; not thread-safe.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace devcheck::lsp {

struct Position {
  int line = 0;       // 0-based
  int character = 0;  // 0-based, UTF-16 code units (the protocol's default)
};

class Document {
 public:
  Document() = default;
  Document(std::string uri, std::string text, int version);

  const std::string& uri() const { return uri_; }
  const std::string& text() const { return text_; }
  int version() const { return version_; }
  // The file the URI names (file:// URIs, percent-decoded), or "" for other
  // schemes (an untitled buffer).
  const std::string& path() const { return path_; }

  // Replaces the bytes between two positions (positions past the end of a
  // line or of the text are clamped to it, as the protocol asks).
  void replace(Position start, Position end, std::string_view text);
  // Replaces the whole text.
  void set_text(std::string text);
  void set_version(int version) { version_ = version; }

  // The byte offset of a position.
  std::size_t offset(Position p) const;
  // The position of lint's 1-based line and 1-based byte column.
  Position position(int line, int column) const;
  // The position of a byte offset.
  Position at(std::size_t offset) const;
  // The text of a 1-based line, without its line break ("" past the end).
  std::string_view line_text(int line) const;
  int line_count() const { return static_cast<int>(line_starts_.size()); }

 private:
  void index();
  std::string uri_;
  std::string path_;
  std::string text_;
  int version_ = 0;
  std::vector<std::size_t> line_starts_;
};

// The path of a file:// URI (percent-decoded), or "" for other schemes.
std::string path_of_uri(std::string_view uri);
// The file:// URI of an absolute path (percent-encoding what needs it).
std::string uri_of_path(std::string_view path);

}  // namespace devcheck::lsp
