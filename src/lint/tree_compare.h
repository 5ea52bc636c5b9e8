#pragma once
// The parser as devcheck builds it (the tree-sitter runtime changed by
// src/lint/runtime_patch.cmake, the grammar by grammar_patch.cmake) held
// against the parser as published (Debian's tree-sitter 0.20.7 source and
// npm's tree-sitter-python 0.23.6, unchanged, in the shared library
// devcheck_tree_sitter_upstream): both parse the same text and the trees must
// be the same, node for node. Used by tests/lint/grammar_test.cc and
// fuzz/lint_fuzz.cc, which link that library.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lint/syntax.h"
#include "lint/tree_shape.h"
#include "lint/upstream/parser.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace devcheck::lint::detail {

class ParserPair {
 public:
  // "" when both parsers give `text` the same tree; otherwise where and how
  // the trees first differ.
  std::string difference(const std::string& text) {
    return difference(text, parser_.parse(text).get());
  }

  // The same, devcheck's parser reading `text` through a TSInput that copies
  // at most `chunk` bytes at a time into a buffer of its own (devcheck hands
  // over the whole text at once; a lexer that reads past its chunk reads
  // bytes that are not the text's).
  std::string difference_in_chunks(const std::string& text, std::uint32_t chunk) {
    Chunks chunks{&text, chunk, {}};
    const TSInput input{&chunks, &Chunks::read, TSInputEncodingUTF8};
    const std::unique_ptr<TSTree, TreeDeleter> built(
        ts_parser_parse(chunked_.get(), nullptr, input));
    return difference(text, built.get());
  }

 private:
  struct Chunks {
    const std::string* text;
    std::uint32_t size;
    std::string buffer;
    static const char* read(void* payload, std::uint32_t byte, TSPoint /*point*/,
                            std::uint32_t* bytes_read) {
      auto* self = static_cast<Chunks*>(payload);
      const std::size_t at = std::min<std::size_t>(byte, self->text->size());
      self->buffer.assign(*self->text, at, self->size);
      // A byte after the chunk that the text does not have there.
      self->buffer.push_back('\x01');
      *bytes_read = static_cast<std::uint32_t>(self->buffer.size() - 1);
      return self->buffer.data();
    }
  };

  std::string difference(const std::string& text, const TSTree* built) {
    const auto size = static_cast<std::uint32_t>(text.size());
    if (fingerprint(built) == devcheck_upstream_fingerprint(text.data(), size)) return "";
    // Both listings split alike (a node's type may hold a line break).
    std::string built_listed;
    for (const std::string& line : describe(built)) built_listed += line + '\n';
    const std::unique_ptr<char, decltype(&devcheck_upstream_free)> upstream_listed(
        devcheck_upstream_describe(text.data(), size), &devcheck_upstream_free);
    const std::vector<std::string> a = lines_of(built_listed);
    const std::vector<std::string> b =
        lines_of(upstream_listed ? upstream_listed.get() : "(no listing: out of memory)");
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

  static std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  Parser parser_;
  std::unique_ptr<TSParser, ParserDeleter> chunked_ = [] {
    std::unique_ptr<TSParser, ParserDeleter> made(ts_parser_new());
    ts_parser_set_language(made.get(), tree_sitter_python());
    return made;
  }();
};

}  // namespace devcheck::lint::detail
