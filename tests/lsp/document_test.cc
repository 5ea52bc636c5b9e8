// Buffers and positions (src/lsp/document.cc): UTF-16 columns, edits,
// file:// URIs.
#include "document.h"

#include <gtest/gtest.h>

namespace devcheck::lsp {
namespace {

TEST(Document, CountsCharactersInUtf16Units) {
  // "é" is 2 bytes and 1 unit; "𝑥" is 4 bytes and 2 units.
  const Document d("file:///t.py", "a = 'é𝑥'; b = 1\n", 1);
  EXPECT_EQ(d.offset({0, 6}), 7U);       // after é
  EXPECT_EQ(d.offset({0, 8}), 11U);      // after the 𝑥 pair
  const Position p = d.position(1, 13);  // ';' is byte 12
  EXPECT_EQ(p.line, 0);
  EXPECT_EQ(p.character, 9);
  EXPECT_EQ(d.at(12).character, 9);
}

TEST(Document, AppliesRangeEditsAndClampsPastTheEnd) {
  Document d("file:///t.py", "x = 1\ny = 2\n", 1);
  d.replace({1, 4}, {1, 5}, "torch.zeros(3)");
  EXPECT_EQ(d.text(), "x = 1\ny = torch.zeros(3)\n");
  d.replace({0, 99}, {0, 99}, "  # one");
  EXPECT_EQ(d.text(), "x = 1  # one\ny = torch.zeros(3)\n");
  d.replace({9, 0}, {9, 0}, "z = 3\n");
  EXPECT_EQ(d.text(), "x = 1  # one\ny = torch.zeros(3)\nz = 3\n");
  EXPECT_EQ(d.line_text(3), "z = 3");
  EXPECT_EQ(d.line_count(), 4);
}

TEST(Document, MapsFileUrisToPathsAndBack) {
  EXPECT_EQ(path_of_uri("file:///home/me/my%20nb.ipynb"), "/home/me/my nb.ipynb");
  EXPECT_EQ(path_of_uri("untitled:Untitled-1"), "");
  EXPECT_EQ(uri_of_path("/home/me/my nb.py"), "file:///home/me/my%20nb.py");
  const Document d("file:///a/b.py", "", 0);
  EXPECT_EQ(d.path(), "/a/b.py");
}

}  // namespace
}  // namespace devcheck::lsp
