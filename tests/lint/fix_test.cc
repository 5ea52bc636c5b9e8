#include <gtest/gtest.h>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

Finding with_fix(std::size_t start, std::size_t end, std::string content) {
  Finding f;
  f.fix = Fix{"m", {{start, end, std::move(content)}}};
  return f;
}

TEST(LintFix, AppliesFixesAndSkipsOverlappingOnes) {
  EXPECT_EQ(apply_fixes("abcdef", {with_fix(4, 5, "E"), with_fix(0, 1, "A")}), "AbcdEf");
  EXPECT_EQ(apply_fixes("abcdef", {with_fix(0, 3, "X"), with_fix(2, 4, "Y")}), "Xdef");
  EXPECT_EQ(apply_fixes("abc", {with_fix(1, 1, "-")}), "a-bc");
  EXPECT_EQ(apply_fixes("abc", {with_fix(2, 9, "!")}), "abc");
}

TEST(LintFix, ShowsAUnifiedDiffWithContext) {
  const std::string before = "1\n2\n3\n4\nx.cuda()\n6\n7\n8\n9\n10\n";
  const std::string after = "1\n2\n3\n4\nx = x.cuda()\n6\n7\n8\n9\n10\n";
  EXPECT_EQ(
      unified_diff("t.py", before, after),
      "--- a/t.py\n+++ b/t.py\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-x.cuda()\n+x = x.cuda()\n 6\n 7\n"
      " 8\n");
  EXPECT_EQ(unified_diff("t.py", before, before), "");
  EXPECT_EQ(unified_diff("t.py", "a", "b"),
            "--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
            "\\ No newline at end of file\n");
}

}  // namespace
}  // namespace devcheck::lint
