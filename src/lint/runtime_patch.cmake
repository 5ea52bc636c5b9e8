# The tree-sitter runtime as devcheck compiles it: Debian 12's tree-sitter
# 0.20.7 source (the release libtree-sitter-dev is built from; fetched by
# scripts/install-deps.sh), its lib/src copied into the build folder with
# five changes that keep every tree and remove work from each parse
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
#    included range and inside the chunk read of a UTF-8 input, and that byte
#    is below 0x80, it
#    now does in place what ts_lexer__do_advance() does on that path: the
#    position one byte on (the next row after '\n', else the next column),
#    the token's start moved there when skipping, and the byte as the
#    lookahead. Every other case goes the way it went. Where the chunk and
#    the range end is kept in the lexer (devcheck_fast_end, lexer.h), set
#    wherever the chunk, the range or the input changes (the chunk cleared or
#    read, a move to a position, the slow advance), so that the test is one
#    comparison.
# In the parse table lookup (lib/src/language.h):
# 3. ts_language_lookup() finds the action or next state for a parse state
#    and a symbol. For the grammar's "small" states (most of Python's) that is
#    a linear scan of the state's symbol groups, done for every token and
#    every reduction. The answer depends only on the language, the state and
#    the symbol; each thread now keeps the last answers in a table of 4,096
#    entries indexed by a hash of (state, symbol) and keyed by both, emptied
#    when the thread looks up in another language.
# In the reference counts of subtrees (lib/src/atomic.h):
# 4. atomic_inc() and atomic_dec() count a subtree's owners with locked
#    instructions, so that trees copied with ts_tree_copy() can be used and
#    deleted in several threads. devcheck never copies a tree: each lint
#    thread parses, reads and deletes its own trees, with its own parser. The
#    counts are now plain increments and decrements (what the runtime does
#    when compiled by TinyCC), the same numbers without the bus lock, for
#    every retain during the parse and every release when a tree is deleted.
# In the balancing of a finished tree (lib/src/subtree.c, subtree.h):
# 5. ts_subtree_balance() rebalances the chains a repetition builds (a
#    module's statements, a list's items), which otherwise grow one level per
#    item: it compresses a repetition node whose first child's repetition
#    chain is deeper than its last child's. To find those it walks every node
#    with children, the whole tree once more after the parse. Each node now
#    also says whether such a node is in its subtree (a bit, set by
#    ts_subtree_summarize_children() from its children and itself), and the
#    walk goes only into children that say so: the same nodes are compressed,
#    the same tree results (a compression summarises the nodes it changes
#    again, so their bits follow it), and the rest is not visited.
#
# devcheck_patch_tree_sitter_runtime(LIB OUTPUT_DIR): LIB is the source's lib/
# folder; writes OUTPUT_DIR/src, a copy of LIB/src with lexer.c, lexer.h,
# language.h, atomic.h, subtree.c and subtree.h changed, failing the
# configure step if a text to change is not
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

  /* devcheck (src/lint/runtime_patch.cmake): one ASCII byte on, before the
     end of the chunk read and of the current included range
     (devcheck_fast_end: 0 without a chunk, or a UTF-8 input, or a range),
     without a logger: what ts_lexer__do_advance() does on that path. */
  const uint32_t next = self->current_position.bytes + 1;
  if (next < self->devcheck_fast_end && self->lookahead_size == 1 && !self->logger.log) {
    const uint8_t byte = ((const uint8_t *)self->chunk)[next - self->chunk_start];
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
  if (!self->chunk) return;
]=])
  # devcheck_fast_end follows every change of the chunk, the included range
  # or the input: where the chunk is cleared or read, and at the end of a
  # move to a position (ts_lexer_goto) and of the slow advance.
  set(fast_end_field_anchor [=[
  uint32_t lookahead_size;
  bool did_get_column;
]=])
  set(fast_end_field_change [=[
  uint32_t lookahead_size;
  /* devcheck (src/lint/runtime_patch.cmake): the byte before which an ASCII
     byte may be advanced over in place (0: never). */
  uint32_t devcheck_fast_end;
  bool did_get_column;
]=])
  set(fast_end_helper_anchor [=[
// Clear the currently stored chunk of source code, because the lexer's
// position has changed.
static void ts_lexer__clear_chunk(Lexer *self) {
  self->chunk = NULL;
  self->chunk_size = 0;
  self->chunk_start = 0;
}
]=])
  set(fast_end_helper_change [=[
/* devcheck (src/lint/runtime_patch.cmake): where ts_lexer__advance() may
   advance in place: before the end of the chunk read and of the current
   included range, for a UTF-8 input; 0 (never) otherwise. */
static void devcheck_lexer__set_fast_end(Lexer *self) {
  uint32_t end = 0;
  if (self->chunk && self->input.encoding == TSInputEncodingUTF8 &&
      self->current_included_range_index < self->included_range_count) {
    end = self->chunk_start + self->chunk_size;
    const uint32_t range_end =
      self->included_ranges[self->current_included_range_index].end_byte;
    if (range_end < end) end = range_end;
  }
  self->devcheck_fast_end = end;
}

// Clear the currently stored chunk of source code, because the lexer's
// position has changed.
static void ts_lexer__clear_chunk(Lexer *self) {
  self->chunk = NULL;
  self->chunk_size = 0;
  self->chunk_start = 0;
  self->devcheck_fast_end = 0;
}
]=])
  set(fast_end_chunk_anchor [=[
  if (!self->chunk_size) {
    self->current_included_range_index = self->included_range_count;
    self->chunk = NULL;
  }
}
]=])
  set(fast_end_chunk_change [=[
  if (!self->chunk_size) {
    self->current_included_range_index = self->included_range_count;
    self->chunk = NULL;
  }
  devcheck_lexer__set_fast_end(self);
}
]=])
  set(fast_end_goto_anchor [=[
    ts_lexer__clear_chunk(self);
    self->lookahead_size = 1;
    self->data.lookahead = '\0';
  }
}
]=])
  set(fast_end_goto_change [=[
    ts_lexer__clear_chunk(self);
    self->lookahead_size = 1;
    self->data.lookahead = '\0';
  }
  devcheck_lexer__set_fast_end(self);
}
]=])
  set(fast_end_advance_anchor [=[
  } else {
    ts_lexer__clear_chunk(self);
    self->data.lookahead = '\0';
    self->lookahead_size = 1;
  }
}
]=])
  set(fast_end_advance_change [=[
  } else {
    ts_lexer__clear_chunk(self);
    self->data.lookahead = '\0';
    self->lookahead_size = 1;
  }
  devcheck_lexer__set_fast_end(self);
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
  set(refcount_anchor [=[
#ifdef __TINYC__
]=])
  set(refcount_change [=[
/* devcheck (src/lint/runtime_patch.cmake): a tree is only ever used by the
   thread that parsed it, so its reference counts need no bus lock. */
#if 1
]=])
  # Before is_missing: the initialisers of subtree.c give the union after
  # `.is_keyword = ...` by position.
  set(unbalanced_field_anchor [=[
  bool depends_on_column: 1;
  bool is_missing : 1;
]=])
  set(unbalanced_field_change [=[
  bool depends_on_column: 1;
  /* devcheck (src/lint/runtime_patch.cmake): a repetition node in this
     subtree that ts_subtree_balance() compresses. */
  bool devcheck_unbalanced : 1;
  bool is_missing : 1;
]=])
  set(unbalanced_reset_anchor [=[
  self.ptr->dynamic_precedence = 0;

  uint32_t structural_index = 0;
]=])
  set(unbalanced_reset_change [=[
  self.ptr->dynamic_precedence = 0;
  self.ptr->devcheck_unbalanced = false;

  uint32_t structural_index = 0;
]=])
  set(unbalanced_children_anchor [=[
    if (ts_subtree_has_external_tokens(child)) self.ptr->has_external_tokens = true;
]=])
  set(unbalanced_children_change [=[
    if (ts_subtree_has_external_tokens(child)) self.ptr->has_external_tokens = true;
    if (grandchild_count > 0 && child.ptr->devcheck_unbalanced) {
      self.ptr->devcheck_unbalanced = true;
    }
]=])
  set(unbalanced_self_anchor [=[
      if (ts_subtree_repeat_depth(first_child) > ts_subtree_repeat_depth(last_child)) {
        self.ptr->repeat_depth = ts_subtree_repeat_depth(first_child) + 1;
]=])
  set(unbalanced_self_change [=[
      if (ts_subtree_repeat_depth(first_child) > ts_subtree_repeat_depth(last_child)) {
        /* devcheck: ts_subtree_balance() compresses this node. */
        self.ptr->devcheck_unbalanced = true;
        self.ptr->repeat_depth = ts_subtree_repeat_depth(first_child) + 1;
]=])
  set(unbalanced_walk_anchor [=[
      if (ts_subtree_child_count(child) > 0 && child.ptr->ref_count == 1) {
]=])
  set(unbalanced_walk_change [=[
      if (ts_subtree_child_count(child) > 0 && child.ptr->ref_count == 1 &&
          child.ptr->devcheck_unbalanced) {
]=])
  file(COPY ${lib}/src/ DESTINATION ${out}/src PATTERN lexer.c EXCLUDE PATTERN language.h EXCLUDE
       PATTERN lexer.h EXCLUDE PATTERN atomic.h EXCLUDE PATTERN subtree.c EXCLUDE PATTERN subtree.h EXCLUDE)
  set(patch_file ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set(release "tree-sitter 0.20.7")
  devcheck_patch_file(${lib}/src/lexer.c ${out}/src/lexer.c "${release}" ${patch_file}
                      lookahead advance fast_end_helper fast_end_chunk fast_end_goto
                      fast_end_advance)
  devcheck_patch_file(${lib}/src/lexer.h ${out}/src/lexer.h "${release}" ${patch_file}
                      fast_end_field)
  devcheck_patch_file(${lib}/src/language.h ${out}/src/language.h "${release}" ${patch_file}
                      includes lookup)
  devcheck_patch_file(${lib}/src/atomic.h ${out}/src/atomic.h "${release}" ${patch_file} refcount)
  devcheck_patch_file(${lib}/src/subtree.h ${out}/src/subtree.h "${release}" ${patch_file}
                      unbalanced_field)
  devcheck_patch_file(${lib}/src/subtree.c ${out}/src/subtree.c "${release}" ${patch_file}
                      unbalanced_reset unbalanced_children unbalanced_self unbalanced_walk)
endfunction()
