#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

LintReport sample() {
  LintReport report;
  report.add_file();
  report.add_file();
  for (const Finding& f :
       lint_source("import torch\ntorch.load(p)\nx = torch.FloatTensor(2)\n", "b.py")) {
    report.add(f);
  }
  Finding a;
  a.path = "a.py";
  a.line = 7;
  a.column = 3;
  a.end_line = 7;
  a.end_column = 9;
  a.rule = "DC105";
  a.message = "m";
  report.add(a);
  report.finish();
  return report;
}

TEST(LintReport, PrintsSortedLinesAndASummary) {
  EXPECT_EQ(sample().to_text(),
            "a.py:7:3: DC105 m\n"
            "b.py:2:1: DC105 torch.load without map_location: tensors saved on a GPU fail to load "
            "where that device is missing; pass map_location=\"cpu\" (or the target device) and "
            "weights_only= explicitly (its default changed in torch 2.6)\n"
            "b.py:3:5: DC119 torch.FloatTensor(...) is a legacy constructor; use "
            "torch.tensor(data, dtype=torch.float32) or torch.empty(size, ...)\n"
            "Found 3 findings in 2 files (2 checked); 1 fixable.\n");
  LintReport clean;
  clean.add_file();
  EXPECT_EQ(clean.to_text(), "No findings in 1 file checked.\n");
}

TEST(LintReport, PrintsJsonWithPositionsAndFixes) {
  const nlohmann::json j = nlohmann::json::parse(sample().to_json());
  ASSERT_EQ(j.size(), 3U);
  EXPECT_EQ(j[0]["path"], "a.py");
  EXPECT_EQ(j[0]["end_column"], 9);
  EXPECT_FALSE(j[0].contains("fix"));
  EXPECT_EQ(j[2]["rule"], "DC119");
  EXPECT_EQ(j[2]["fix"]["edits"][0]["content"], "torch.empty(2, dtype=torch.float32)");
}

TEST(LintReport, PrintsSarif210WithEveryRule) {
  const nlohmann::json s = nlohmann::json::parse(sample().to_sarif());
  EXPECT_EQ(s["version"], "2.1.0");
  const nlohmann::json& run = s["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "devcheck");
  EXPECT_EQ(run["tool"]["driver"]["rules"].size(), rules().size());
  const nlohmann::json& result = run["results"][1];
  EXPECT_EQ(result["ruleId"], "DC105");
  EXPECT_EQ(result["level"], "warning");
  EXPECT_EQ(run["tool"]["driver"]["rules"][result["ruleIndex"].get<int>()]["id"], "DC105");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "b.py");
}

TEST(LintReport, CountsFindingsPerRule) {
  EXPECT_EQ(sample().statistics(),
            "     2  DC105  load-without-map-location\n"
            "     1  DC119  legacy-tensor-type\n");
}

}  // namespace
}  // namespace devcheck::lint
