// Findings as diagnostics and code actions (src/lsp/diagnostics.cc).
#include "diagnostics.h"

#include <gtest/gtest.h>

#include "devcheck/lint.h"

namespace devcheck::lsp {
namespace {

const char* const kStray =
    "import torch\n"
    "x = torch.randn(4, device='cuda')\n"
    "h = torch.zeros(4)\n"
    "y = x + h\n";

TEST(Diagnostic, HasCodeSeverityLinkAndTheLineTheMessageNames) {
  const Document doc("file:///w/t.py", kStray, 1);
  const auto findings = lint::lint_source(doc.text(), "/w/t.py");
  ASSERT_EQ(findings.size(), 1U);
  const nlohmann::json d = diagnostic(findings[0], doc);
  EXPECT_EQ(d["code"], "DC101");
  EXPECT_EQ(d["severity"], 2);
  EXPECT_EQ(d["source"], "devcheck");
  EXPECT_EQ(d["codeDescription"]["href"],
            "https://github.com/devcheck/devcheck/blob/main/docs/lint.md#dc101");
  EXPECT_EQ(d["range"]["start"]["line"], 2);
  EXPECT_EQ(d["range"]["start"]["character"], 4);
  ASSERT_EQ(d["relatedInformation"].size(), 1U);
  EXPECT_EQ(d["relatedInformation"][0]["location"]["range"]["start"]["line"], 3);
  EXPECT_EQ(d["relatedInformation"][0]["message"], "line 4: y = x + h");
  EXPECT_EQ(d["relatedInformation"][0]["location"]["uri"], "file:///w/t.py");
}

TEST(Diagnostic, SyntaxErrorIsAnErrorAtItsPlace) {
  const Document doc("file:///w/t.py", "import torch\nx = (1,\n", 1);
  const auto findings = lint::lint_source(doc.text(), "/w/t.py");
  ASSERT_FALSE(findings.empty());
  const nlohmann::json d = diagnostic(findings[0], doc);
  EXPECT_EQ(d["code"], "DC100");
  EXPECT_EQ(d["severity"], 1);
  EXPECT_GE(d["range"]["start"]["line"], 1);
}

TEST(CodeActions, OfferTheFixAndADisableComment) {
  const Document doc("file:///w/t.py", "import torch\nscaler = torch.cuda.amp.GradScaler()\n", 1);
  const auto findings = lint::lint_source(doc.text(), "/w/t.py");
  const nlohmann::json actions = code_actions(findings, doc, 1, 1);
  ASSERT_EQ(actions.size(), 2U) << actions.dump(1);
  EXPECT_EQ(actions[0]["kind"], "quickfix");
  EXPECT_EQ(actions[0]["isPreferred"], true);
  EXPECT_EQ(actions[0]["title"].get<std::string>().substr(0, 7), "DC109: ");
  // DC109's fix: the name replaced, "cuda" put between the parentheses.
  const nlohmann::json& edits = actions[0]["edit"]["changes"]["file:///w/t.py"];
  ASSERT_EQ(edits.size(), 2U) << edits.dump();
  EXPECT_EQ(edits[0]["newText"], "torch.amp.GradScaler");
  EXPECT_EQ(edits[0]["range"]["start"]["line"], 1);
  EXPECT_EQ(edits[0]["range"]["start"]["character"], 9);
  EXPECT_EQ(edits[1]["newText"], "\"cuda\"");
  EXPECT_EQ(edits[1]["range"]["start"]["character"], 35);
  EXPECT_EQ(actions[1]["title"], "Disable DC109 for this line");
  const nlohmann::json& off = actions[1]["edit"]["changes"]["file:///w/t.py"][0];
  EXPECT_EQ(off["newText"], "  # devcheck: ignore[DC109]");
  EXPECT_EQ(off["range"]["start"]["character"], 36);
  // Outside the range asked about: nothing.
  EXPECT_TRUE(code_actions(findings, doc, 0, 0).empty());
}

TEST(CodeActions, DisableExtendsAnExistingIgnoreComment) {
  const Document doc("file:///w/t.py", "x = 1  # devcheck: ignore[DC105]\n", 1);
  const nlohmann::json e = disable_edit(doc, 1, "DC109");
  EXPECT_EQ(e["newText"], ", DC109");
  EXPECT_EQ(e["range"]["start"]["character"], 31);
}

}  // namespace
}  // namespace devcheck::lsp
