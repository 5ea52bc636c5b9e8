// The parser as devcheck builds it (src/lint/grammar_patch.cmake: a copy of
// tree-sitter-python's with three functions changed to do less work;
// src/lint/runtime_patch.cmake: Debian's tree-sitter 0.20.7 runtime with three
// more) against the parser exactly as published (both unchanged, in the
// library devcheck_tree_sitter_upstream): every tree must be the same, node
// for node, on the code where the changes act (comment blocks at every
// indentation, before every kind of line, in every context the scanner tells
// apart; identifiers with every character up to U+017F; every byte value and
// UTF-8 sequence in every kind of token, the text whole and in chunks), on
// mutated real files and on the whole Python tree of the installed torch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "lint/tree_compare.h"

namespace {

class LintGrammar : public ::testing::Test {
 protected:
  std::string difference(const std::string& text) { return pair_.difference(text); }

  devcheck::lint::detail::ParserPair pair_;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The .py files under `root`, sorted (none when it is absent).
std::vector<std::filesystem::path> python_files(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string indent(int n) { return std::string(static_cast<std::size_t>(n), ' '); }

TEST_F(LintGrammar, SameTreesAroundCommentBlocksInEveryContext) {
  // {block} is replaced by the comment block, {next} by the line after it.
  const std::vector<std::string> contexts = {
      "x = 1\n{block}{next}",
      "def f():\n    x = 1\n{block}{next}",
      "class A:\n    def f(self):\n        x = 1\n{block}{next}",
      "class A:\n    def f(self):\n        if x:\n            y()\n{block}{next}",
      "def f():\n{block}{next}",
      "x = [\n    1,\n{block}{next}]\n",
      "f(a,\n{block}{next})\n",
      "s = '''\n{block}{next}'''\n",
      "s = f'''{x}\n{block}{next}'''\n",
      "if a:\n    x = 1\n{block}{next}else:\n    y = 2\n",
      "try:\n    x = 1\n{block}{next}except E:\n    pass\n",
      "x = 1 + \\\n{block}{next}",
      "def f(:\n    x = 1\n{block}{next}",
      "match x:\n    case 1:\n        y = 2\n{block}{next}",
  };
  const std::vector<std::string> next_lines = {"y = 2\n",   "",          "\\x\n", "'s'\n",
                                               "\\\n  y\n", "\tz = 3\n", "#last", ")\n"};
  int programs = 0;
  for (const std::string& context : contexts) {
    for (const int first : {0, 2, 4, 8, 12}) {
      for (const int rest : {0, 4, 8}) {
        for (const int count : {1, 3}) {
          for (const bool blank : {false, true}) {
            std::string block = indent(first) + "# first\n";
            for (int i = 1; i < count; ++i) {
              if (blank) block += "\n";
              block += indent(rest) + "# more " + std::to_string(i) + "\n";
            }
            for (const int next_indent : {0, 4, 8, 12}) {
              for (const std::string& next : next_lines) {
                std::string text = context;
                text.replace(text.find("{block}"), 7, block);
                text.replace(text.find("{next}"), 6,
                             next.empty() ? next : indent(next_indent) + next);
                const std::string diff = difference(text);
                ASSERT_EQ(diff, "") << "in:\n" << text;
                ++programs;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(programs, 14 * 5 * 3 * 2 * 2 * 4 * 8);
}

// set_contains() answers ASCII characters by a walk from the table's start:
// every character up to U+017F where an identifier may start, continue or
// end, and beside a digit.
TEST_F(LintGrammar, SameTreesOnIdentifiersOfEveryCharacter) {
  const auto utf8 = [](char32_t c) {
    std::string out;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(0xC0 | (c >> 6U));
      out += static_cast<char>(0x80 | (c & 0x3FU));
    }
    return out;
  };
  for (char32_t c = 0; c < 0x180; ++c) {
    const std::string ch = utf8(c);
    for (std::string text : {"a@b = @1\n", "@x.y@\n", "def @(@_):\n    return 0@\n"}) {
      for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at)) {
        text.replace(at, 1, ch);
        at += ch.size();
      }
      const std::string diff = difference(text);
      ASSERT_EQ(diff, "") << "with U+" << std::hex << static_cast<unsigned>(c) << " in: " << text;
    }
  }
}

// The lexer takes a byte below 0x80 as its own character without decoding it
// and moves one such byte on in place (src/lint/runtime_patch.cmake): every
// byte value, UTF-8 sequences of two to four bytes, sequences cut short, a
// stray continuation byte, an overlong form, a byte order mark, NUL, CR and
// CRLF, in every kind of token and at the end of the file; the text handed
// over whole, and in chunks of four to seven bytes (a character split between
// two chunks; below four, tree-sitter 0.20.7 as published cannot put a
// split character together).
TEST_F(LintGrammar, SameTreesOnEveryByteAndEveryKindOfUtf8Sequence) {
  std::vector<std::string> payloads;
  payloads.reserve(256 + 13);
  for (int byte = 0; byte < 256; ++byte) payloads.emplace_back(1, static_cast<char>(byte));
  // (\x62 is 'b' and \x78 'x', after a character made of escapes.)
  for (const char* sequence : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xE2\x82",
                               "\xF0\x9F\x98", "\xC3", "\x80\x80", "\xC0\xAF", "\xEF\xBB\xBF",
                               "\r\n", "\r", "a\xC3\xA9\x62", "\xE2\x82\xAC\x78\n"}) {
    payloads.emplace_back(sequence);
  }
  const std::vector<std::string> contexts = {"@",
                                             "x = @\n",
                                             "x = 1@\n",
                                             "s = '@'\n",
                                             "# @\n",
                                             "a@b = 1\n",
                                             "def f(@):\n    return @\n",
                                             "s = '''@\n@'''\n",
                                             "f\"{x}@{y}\"\n",
                                             "if a:\n@    b\n",
                                             "x = [1,\n@\n]\n",
                                             "x = 1 \\\n@\n"};
  int programs = 0;
  for (const std::string& context : contexts) {
    for (const std::string& payload : payloads) {
      std::string text = context;
      for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at)) {
        text.replace(at, 1, payload);
        at += payload.size();
      }
      // Whole, and cut after the first payload (a file that ends there).
      for (const std::string& cut : {text, text.substr(0, context.find('@') + payload.size())}) {
        ASSERT_EQ(difference(cut), "") << "in: " << ::testing::PrintToString(cut);
        for (const std::uint32_t chunk : {4U, 5U, 6U, 7U}) {
          ASSERT_EQ(pair_.difference_in_chunks(cut, chunk), "")
              << "in chunks of " << chunk << ": " << ::testing::PrintToString(cut);
        }
        ++programs;
      }
    }
  }
  EXPECT_EQ(programs, 12 * (256 + 13) * 2);
}

// Real files read in chunks: the lexer's one-byte step stays inside the chunk
// it was given.
TEST_F(LintGrammar, SameTreesOnRealFilesReadInChunks) {
  const std::vector<std::filesystem::path> files = python_files(DEVCHECK_LINT_CORPUS);
  if (files.empty()) GTEST_SKIP() << "no Python tree at " << DEVCHECK_LINT_CORPUS;
  int read = 0;
  for (std::size_t f = 0; f < files.size(); f += 97) {
    const std::string text = read_file(files[f]);
    for (const std::uint32_t chunk : {4U, 5U, 64U, 4096U}) {
      ASSERT_EQ(pair_.difference_in_chunks(text, chunk), "")
          << "in " << files[f] << " in chunks of " << chunk;
    }
    ++read;
  }
  EXPECT_GT(read, 0);
}

// Real files with comment blocks, stray backslashes, dedents and cut lines
// put in at random places (a fixed seed: the same files every run).
TEST_F(LintGrammar, SameTreesOnMutatedRealFiles) {
  const std::vector<std::filesystem::path> files = python_files(DEVCHECK_LINT_CORPUS);
  if (files.empty()) GTEST_SKIP() << "no Python tree at " << DEVCHECK_LINT_CORPUS;
  std::mt19937 random(20261203);
  int mutants = 0;
  for (std::size_t f = 0; f < files.size(); f += 8) {
    std::vector<std::string> lines;
    std::istringstream in(read_file(files[f]));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (int m = 0; m < 3; ++m) {
      std::vector<std::string> changed = lines;
      const int edits = 1 + static_cast<int>(random() % 5);
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = random() % (changed.size() + 1);
        const std::string pad = indent(static_cast<int>(random() % 5) * 4);
        switch (random() % 6) {
          case 0:
            for (int i = 0, n = 2 + static_cast<int>(random() % 12); i < n; ++i) {
              changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at),
                             indent(static_cast<int>(random() % 4) * 4) + "# c");
            }
            break;
          case 1:
            changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at), pad + "\\x");
            break;
          case 2:
            if (at < changed.size()) changed[at].erase(0, changed[at].find_first_not_of(' '));
            break;
          case 3:
            if (at < changed.size()) changed[at].resize(random() % (changed[at].size() + 1));
            break;
          case 4:
            // A comment, then a line of indentation alone.
            changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at), pad);
            changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at), pad + "# x");
            break;
          default:
            if (at < changed.size()) changed[at] = "\t" + changed[at];
            break;
        }
      }
      std::string text;
      for (const std::string& line : changed) text += line + "\n";
      const std::string diff = difference(text);
      ASSERT_EQ(diff, "") << "in a mutant of " << files[f] << ":\n" << text;
      ++mutants;
    }
  }
  EXPECT_GT(mutants, 0);
}

TEST_F(LintGrammar, SameTreesOnTheInstalledTorchTree) {
  const std::vector<std::filesystem::path> files = python_files(DEVCHECK_LINT_CORPUS);
  if (files.empty()) GTEST_SKIP() << "no Python tree at " << DEVCHECK_LINT_CORPUS;
  for (const std::filesystem::path& file : files) {
    const std::string diff = difference(read_file(file));
    ASSERT_EQ(diff, "") << "in " << file;
  }
}

}  // namespace
