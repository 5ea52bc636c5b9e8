# The tree-sitter runtime as devcheck compiles it: Debian 12's tree-sitter
# 0.20.7 source (the release libtree-sitter-dev is built from; fetched by
# scripts/install-deps.sh), its lib/src copied into the build folder with
# three changes that keep every tree and remove work from each parse
# (docs/lint.md, "Measured"). The files Debian ships are left as they are;
# devcheck_tree_sitter_upstream (src/lint/CMakeLists.txt) compiles them
# unchanged, with the grammar as npm unpacked it, for tests/lint/grammar_test.cc
# and the fuzz harness, which parse with both and require the same trees.
#
# In the lexer (lib/src/lexer.c), which the grammar's generated lexer calls
# through a function pointer for every character of the file:
# 1. ts_lexer__get_lookahead() decodes the character at the current position.
#    For a UTF-8 input whose byte there is below 0x80 it now takes the byte
#    itself: ts_decode_utf8() gives that code point, one byte long, for it.
# 2. ts_lexer__advance() moves one character on. When no logger is set, the
#    character it leaves is one byte long, the next byte is inside the current
#    included range and inside the chunk read, and that byte is below 0x80, it
#    now does in place what ts_lexer__do_advance() does on that path: the
#    position one byte on (the next row after '\n', else the next column),
#    the token's start moved there when skipping, and the byte as the
#    lookahead. Every other case goes the way it went.
# In the parse table lookup (lib/src/language.h):
# 3. ts_language_lookup() finds the action or next state for a parse state
#    and a symbol. For the grammar's "small" states (most of Python's) that is
#    a linear scan of the state's symbol groups, done for every token and
#    every reduction. The answer depends only on the language, the state and
#    the symbol; each thread now keeps the last answers in a table of 4,096
#    entries indexed by a hash of (state, symbol) and keyed by both, emptied
#    when the thread looks up in another language.
#
# devcheck_patch_tree_sitter_runtime(LIB OUTPUT_DIR): LIB is the source's lib/
# folder; writes OUTPUT_DIR/src, a copy of LIB/src with lexer.c and
# language.h changed, failing the configure step if a text to change is not
# found exactly once (patch_file.cmake). Compile OUTPUT_DIR/src/lib.c, the
# runtime in one file, with LIB/include on the include path.
include(${CMAKE_CURRENT_LIST_DIR}/patch_file.cmake)
function(devcheck_patch_tree_sitter_runtime lib out)
  set(lookahead_anchor [=[
  const uint8_t *chunk = (const uint8_t *)self->chunk + position_in_chunk;
  UnicodeDecodeFunction decode = self->input.encoding == TSInputEncodingUTF8
]=])
  set(lookahead_change [=[
  const uint8_t *chunk = (const uint8_t *)self->chunk + position_in_chunk;
  /* devcheck (src/lint/runtime_patch.cmake): an ASCII byte is its own
     character, one byte long. */
  if (*chunk < 0x80 && self->input.encoding == TSInputEncodingUTF8) {
    self->lookahead_size = 1;
    self->data.lookahead = *chunk;
    return;
  }
  UnicodeDecodeFunction decode = self->input.encoding == TSInputEncodingUTF8
]=])
  set(advance_anchor [=[
static void ts_lexer__advance(TSLexer *_self, bool skip) {
  Lexer *self = (Lexer *)_self;
  if (!self->chunk) return;
]=])
  set(advance_change [=[
static void ts_lexer__advance(TSLexer *_self, bool skip) {
  Lexer *self = (Lexer *)_self;
  if (!self->chunk) return;

  /* devcheck (src/lint/runtime_patch.cmake): one ASCII byte on, inside the
     range and the chunk, without a logger: what ts_lexer__do_advance() does
     on that path. */
  if (!self->logger.log && self->lookahead_size == 1 &&
      self->input.encoding == TSInputEncodingUTF8 &&
      self->current_included_range_index < self->included_range_count) {
    const uint32_t next = self->current_position.bytes + 1;
    const uint32_t next_in_chunk = next - self->chunk_start;
    if (next < self->included_ranges[self->current_included_range_index].end_byte &&
        next_in_chunk < self->chunk_size) {
      const uint8_t byte = ((const uint8_t *)self->chunk)[next_in_chunk];
      if (byte < 0x80) {
        self->current_position.bytes = next;
        if (self->data.lookahead == '\n') {
          self->current_position.extent.row++;
          self->current_position.extent.column = 0;
        } else {
          self->current_position.extent.column++;
        }
        if (skip) self->token_start_position = self->current_position;
        self->data.lookahead = byte;
        return;
      }
    }
  }
]=])
  set(lookup_anchor [=[
static inline uint16_t ts_language_lookup(
  const TSLanguage *self,
  TSStateId state,
  TSSymbol symbol
) {
  if (state >= self->large_state_count) {
    uint32_t index = self->small_parse_table_map[state - self->large_state_count];
    const uint16_t *data = &self->small_parse_table[index];
    uint16_t group_count = *(data++);
    for (unsigned i = 0; i < group_count; i++) {
      uint16_t section_value = *(data++);
      uint16_t symbol_count = *(data++);
      for (unsigned i = 0; i < symbol_count; i++) {
        if (*(data++) == symbol) return section_value;
      }
    }
    return 0;
  } else {
]=])
  set(lookup_change [=[
/* devcheck (src/lint/runtime_patch.cmake): each thread's last answers for
   small states, keyed by (state, symbol); the key of no pair when empty
   (state 0xffff is never a small state of a language it was filled for). */
#define DEVCHECK_LOOKUP_BITS 12
typedef struct {
  uint32_t key;
  uint16_t value;
} DevcheckLookupEntry;
static _Thread_local DevcheckLookupEntry devcheck_lookup_cache[1u << DEVCHECK_LOOKUP_BITS];
static _Thread_local const TSLanguage *devcheck_lookup_language;

static inline uint16_t ts_language_lookup(
  const TSLanguage *self,
  TSStateId state,
  TSSymbol symbol
) {
  if (state >= self->large_state_count) {
    if (devcheck_lookup_language != self) {
      memset(devcheck_lookup_cache, 0xff, sizeof(devcheck_lookup_cache));
      devcheck_lookup_language = self;
    }
    const uint32_t key = (uint32_t)state << 16 | symbol;
    DevcheckLookupEntry *cached =
      &devcheck_lookup_cache[(key * 2654435761u) >> (32 - DEVCHECK_LOOKUP_BITS)];
    if (cached->key == key) return cached->value;
    uint16_t value = 0;
    uint32_t index = self->small_parse_table_map[state - self->large_state_count];
    const uint16_t *data = &self->small_parse_table[index];
    uint16_t group_count = *(data++);
    for (unsigned i = 0; i < group_count; i++) {
      uint16_t section_value = *(data++);
      uint16_t symbol_count = *(data++);
      for (unsigned i = 0; i < symbol_count; i++) {
        if (*(data++) == symbol) {
          value = section_value;
          goto found;
        }
      }
    }
  found:
    cached->key = key;
    cached->value = value;
    return value;
  } else {
]=])
  set(includes_anchor [=[
#include "./subtree.h"
#include "tree_sitter/parser.h"
]=])
  set(includes_change [=[
#include <string.h>
#include "./subtree.h"
#include "tree_sitter/parser.h"
]=])
  file(COPY ${lib}/src/ DESTINATION ${out}/src PATTERN lexer.c EXCLUDE PATTERN language.h EXCLUDE)
  set(patch_file ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set(release "tree-sitter 0.20.7")
  devcheck_patch_file(${lib}/src/lexer.c ${out}/src/lexer.c "${release}" ${patch_file}
                      lookahead advance)
  devcheck_patch_file(${lib}/src/language.h ${out}/src/language.h "${release}" ${patch_file}
                      includes lookup)
endfunction()
