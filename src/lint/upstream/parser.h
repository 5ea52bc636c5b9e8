#pragma once
// The parser exactly as published (src/lint/CMakeLists.txt:
// devcheck_tree_sitter_upstream, a shared library with every other symbol
// hidden): Debian's tree-sitter 0.20.7 runtime and npm's tree-sitter-python
// 0.23.6, neither changed. For tree_compare.h.
#include <cstdint>

extern "C" {
// lint/tree_shape.h's fingerprint() of the tree the published parser gives `text`.
__attribute__((visibility("default"))) std::uint64_t devcheck_upstream_fingerprint(
    const char* text, std::uint32_t size);
// tree_shape.h's describe() of that tree, its lines each ended by '\n', in a
// buffer to give back to devcheck_upstream_free().
__attribute__((visibility("default"))) char* devcheck_upstream_describe(const char* text,
                                                                        std::uint32_t size);
__attribute__((visibility("default"))) void devcheck_upstream_free(char* text);
}
