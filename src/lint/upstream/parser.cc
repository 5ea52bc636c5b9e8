// The parser exactly as published, for tree_compare.h: compiled into the
// shared library devcheck_tree_sitter_upstream with Debian's tree-sitter
// 0.20.7 runtime and npm's tree-sitter-python 0.23.6, neither changed.
#include "lint/upstream/parser.h"

#include <tree_sitter/api.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "lint/tree_shape.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};

std::unique_ptr<TSTree, TreeDeleter> parse(const char* text, std::uint32_t size) {
  thread_local const std::unique_ptr<TSParser, void (*)(TSParser*)> parser = [] {
    std::unique_ptr<TSParser, void (*)(TSParser*)> made(ts_parser_new(), &ts_parser_delete);
    if (!ts_parser_set_language(made.get(), tree_sitter_python())) {
      throw std::runtime_error("the published tree-sitter runtime does not read the grammar's ABI");
    }
    return made;
  }();
  return std::unique_ptr<TSTree, TreeDeleter>(
      ts_parser_parse_string(parser.get(), nullptr, text, size));
}

}  // namespace

std::uint64_t devcheck_upstream_fingerprint(const char* text, std::uint32_t size) {
  return devcheck::lint::detail::fingerprint(parse(text, size).get());
}

char* devcheck_upstream_describe(const char* text, std::uint32_t size) {
  std::string listed;
  for (const std::string& line : devcheck::lint::detail::describe(parse(text, size).get())) {
    listed += line;
    listed += '\n';
  }
  char* out = static_cast<char*>(std::malloc(listed.size() + 1));
  if (out != nullptr) std::memcpy(out, listed.c_str(), listed.size() + 1);
  return out;
}

void devcheck_upstream_free(char* text) { std::free(text); }
