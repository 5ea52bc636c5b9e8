# tree-sitter-python 0.23.6 as devcheck compiles it: the grammar's files
# copied into the build folder, three of its functions changed so that every
# tree is exactly the one the grammar as published gives and each parse does
# less work (docs/lint.md, "Measured"). The files npm unpacked are left as
# they are; devcheck_tree_sitter_python_upstream (src/lint/CMakeLists.txt)
# compiles them unchanged for tests/lint/grammar_test.cc and the fuzz
# harness, which parse with both and require the same trees.
#
# In the external scanner (src/scanner.c):
# 1. A comment block in an indented body. At each line break the scanner
#    skips every following comment line to measure the indentation of the
#    code after the block, for an INDENT, DEDENT or NEWLINE. Each comment of
#    the block is lexed separately and the scanner runs again at the break
#    before it, so a block of n lines is skipped n times over: quadratic.
#    Upstream's fix needs TSLexer.get_byte, which libtree-sitter does not
#    have (tree-sitter/tree-sitter-python#245, closed). Where the answer
#    cannot depend on that indentation, the scanner now returns at the first
#    comment: INDENT not valid, NEWLINE not a possible answer (not valid, or
#    error recovery), and the comment indented at least as deep as the
#    current block (no DEDENT before such a comment). Every other path through
#    the loop after that point also ends in "no token" (the string start
#    branch needs no comment seen; a stray backslash returns false), so the
#    answer is the same. A scanner that returns false leaves the lexer where
#    it was: the tokens are the same.
# 2. Deserialising the scanner's state (before every call) freed the two
#    stacks and allocated one again; it now empties them and keeps their
#    memory (array_delete -> array_clear; the destroy function still frees).
# In the generated lexer's helper (src/tree_sitter/parser.h):
# 3. set_contains(), which asks whether a character is in a sorted table of
#    ranges (whether it may start or continue an identifier), does a binary
#    search over the 668 or 776 ranges of Unicode's identifier characters for
#    every character of every identifier. For an ASCII character it now walks
#    the table from the start while the ranges begin at or below it: the ASCII
#    ranges come first, so it stops after at most four. Same answer: a range
#    holds the character only if it begins at or below it.
#
# devcheck_patch_python_grammar(GRAMMAR_SRC OUTPUT_DIR): writes OUTPUT_DIR's
# parser.c (a copy), scanner.c and tree_sitter/parser.h, failing the configure
# step if a text to change is not found exactly once (a different grammar
# release must be looked at again, not patched blindly: patch_file.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/patch_file.cmake)
function(devcheck_patch_python_grammar grammar out)
  set(scanner_comment_anchor [=[
            if (first_comment_indent_length == -1) {
                first_comment_indent_length = (int32_t)indent_length;
            }
]=])
  set(scanner_comment_change [=[
            if (first_comment_indent_length == -1) {
                first_comment_indent_length = (int32_t)indent_length;
                /* devcheck (src/lint/grammar_patch.cmake): nothing after this
                   comment can change the answer, which is no token. */
                if (!valid_symbols[INDENT] && !(valid_symbols[NEWLINE] && !error_recovery_mode) &&
                    first_comment_indent_length >= (int32_t)*array_back(&scanner->indents)) {
                    return false;
                }
            }
]=])
  set(scanner_state_anchor [=[
    array_delete(&scanner->delimiters);
    array_delete(&scanner->indents);
    array_push(&scanner->indents, 0);
]=])
  set(scanner_state_change [=[
    /* devcheck (src/lint/grammar_patch.cmake): keep the stacks' memory. */
    array_clear(&scanner->delimiters);
    array_clear(&scanner->indents);
    array_push(&scanner->indents, 0);
]=])
  set(header_ascii_anchor [=[
static inline bool set_contains(TSCharacterRange *ranges, uint32_t len, int32_t lookahead) {
  uint32_t index = 0;
]=])
  set(header_ascii_change [=[
static inline bool set_contains(TSCharacterRange *ranges, uint32_t len, int32_t lookahead) {
  /* devcheck (src/lint/grammar_patch.cmake): ASCII from the table's start. */
  if (lookahead < 0x80) {
    for (uint32_t i = 0; i < len && ranges[i].start <= lookahead; ++i) {
      if (lookahead <= ranges[i].end) return true;
    }
    return false;
  }
  uint32_t index = 0;
]=])
  # parser.c unchanged, beside the header it includes as "tree_sitter/parser.h".
  configure_file(${grammar}/parser.c ${out}/parser.c COPYONLY)
  set(patch_file ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set(release "tree-sitter-python 0.23.6")
  devcheck_patch_file(${grammar}/scanner.c ${out}/scanner.c "${release}" ${patch_file}
                      scanner_comment scanner_state)
  devcheck_patch_file(${grammar}/tree_sitter/parser.h ${out}/tree_sitter/parser.h "${release}"
                      ${patch_file} header_ascii)
endfunction()
