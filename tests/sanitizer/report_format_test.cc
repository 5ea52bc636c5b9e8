#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "devcheck/error.h"
#include "devcheck/sanitizer.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

SanitizerReport sample() {
  SanitizerReport r;
  SanitizerFinding mismatch;
  mismatch.kind = FindingKind::kDeviceMismatch;
  mismatch.op = "aten::add";
  mismatch.site = "train.cc:41";
  mismatch.count = 1;
  mismatch.expected = c10::Device("meta");
  mismatch.arguments.push_back({"other",
                                c10::Device("cpu"),
                                "float32",
                                {3},
                                true,
                                "aten::triu",
                                "train.cc:40",
                                "aten::ones",
                                "train.cc:39"});
  mismatch.message = "[devcheck] device mismatch in aten::add at train.cc:41";
  mismatch.stack = {"main at train.cc:41", "run at train.cc:90"};
  r.findings.push_back(mismatch);
  SanitizerFinding copies;
  copies.kind = FindingKind::kSmallCopies;
  copies.op = "aten::copy_";
  copies.site = "train.cc:12";
  copies.count = 12000;
  copies.bytes = 12000 * 3072;
  copies.direction = "cpu -> cuda:0";
  copies.message = "[devcheck] many small copies";
  r.findings.push_back(copies);
  r.transfers.push_back({"aten::copy_", "cpu -> cuda:0", "train.cc:12", 12000, 12000 * 3072, 0});
  r.syncs.push_back({"aten::_local_scalar_dense", "train.cc:50", "cuda:0", 300});
  r.ops_checked = 123456;
  return r;
}

TEST(SanitizerReport, TextStartsWithASummaryThenFindingsThenTheLedger) {
  const std::string text = sample().to_text();
  EXPECT_THAT(text, HasSubstr("[devcheck] sanitizer: 2 findings (1 device mismatch, 1 "
                              "many-small-copies) in 123456 ops checked; 12000 cross-device "
                              "copies (35.2 MiB) from 1 site; 300 synchronizing ops"));
  EXPECT_THAT(text, HasSubstr("device mismatch in aten::add at train.cc:41"));
  EXPECT_THAT(text, HasSubstr("    run at train.cc:90"));
  EXPECT_THAT(text, HasSubstr("transfers (count, bytes, direction, site):"));
  EXPECT_THAT(text, HasSubstr("cpu -> cuda:0"));
  EXPECT_THAT(text, HasSubstr("synchronizing ops"));
  EXPECT_EQ(sample().mismatch_count(), 1U);
  EXPECT_FALSE(sample().ok());
}

TEST(SanitizerReport, JsonCarriesEveryField) {
  const auto j = nlohmann::json::parse(sample().to_json());
  EXPECT_EQ(j["summary"]["findings"], 2);
  EXPECT_EQ(j["summary"]["mismatches"], 1);
  EXPECT_EQ(j["summary"]["syncs"], 300);
  EXPECT_EQ(j["findings"][0]["arguments"][0]["origin"], "train.cc:40");
  EXPECT_EQ(j["findings"][0]["arguments"][0]["stray"], true);
  EXPECT_EQ(j["findings"][0]["arguments"][0]["origin_op"], "aten::triu");
  EXPECT_EQ(j["findings"][0]["arguments"][0]["derived_from_op"], "aten::ones");
  EXPECT_EQ(j["findings"][0]["arguments"][0]["derived_from"], "train.cc:39");
  EXPECT_EQ(j["findings"][1]["kind"], "small_copies");
  EXPECT_EQ(j["findings"][1]["direction"], "cpu -> cuda:0");
  EXPECT_EQ(j["transfers"][0]["count"], 12000);
  EXPECT_EQ(j["syncs"][0]["device"], "cuda:0");
}

TEST(SanitizerReport, EmptyReportIsOkAndShort) {
  const SanitizerReport r;
  EXPECT_TRUE(r.ok());
  EXPECT_THAT(r.to_text(), HasSubstr("0 findings"));
  EXPECT_EQ(nlohmann::json::parse(r.to_json())["findings"].size(), 0U);
}

TEST(SanitizerReport, WriteTraceWritesAValidTraceEvenWhenEmpty) {
  testing::TempDir dir;
  const auto path = (dir / "t.json").string();
  SanitizerReport().write_trace(path);
  EXPECT_TRUE(nlohmann::json::parse(testing::read_file(path))["traceEvents"].is_array());
}

TEST(SanitizerReport, WriteTraceToAMissingFolderNamesThePath) {
  try {
    SanitizerReport().write_trace("/nonexistent/folder/t.json");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr("/nonexistent/folder/t.json"));
    EXPECT_FALSE(std::filesystem::exists("/nonexistent/folder/t.json.tmp"));
  }
}

}  // namespace
}  // namespace devcheck
