#include "sanitizer/report.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devcheck/fake_device.h"

using ::testing::HasSubstr;

namespace devcheck::sanitizer {
namespace {

TEST(Report, MismatchFindingNamesEveryArgumentAndMarksTheStray) {
  MismatchRecord r;
  r.op = "aten::add";
  r.count = 2;
  const c10::Device fake = fake_device();
  r.expected = fake;
  ArgRecord self;
  self.name = "self";
  self.device = fake;
  self.dtype = c10::ScalarType::Float;
  self.shape = {3};
  ArgRecord other = self;
  other.name = "other";
  other.device = c10::Device("cpu");
  other.stray = true;
  other.origin_known = true;
  other.origin = Origin{"aten::ones", kNoSite};
  r.args = {self, other};
  const SanitizerFinding f = make_mismatch_finding(r);
  EXPECT_EQ(f.kind, FindingKind::kDeviceMismatch);
  EXPECT_THAT(f.message, HasSubstr("device mismatch in aten::add at (unknown site) (2 times)"));
  EXPECT_THAT(f.message, HasSubstr("expected every tensor on " + fake.str() + ", found " +
                                   fake.str() + " (1 tensor) and cpu (1 tensor)"));
  // the device column is as wide as the longest device name
  const size_t width = std::max<size_t>(6, fake.str().size());
  EXPECT_THAT(f.message,
              HasSubstr(fmt::format("self   {:<{}} float32   [3]          origin unknown",
                                    fake.str(), width)));
  EXPECT_THAT(f.message,
              HasSubstr(fmt::format("other  {:<{}} float32   [3]          made by aten::ones",
                                    "cpu", width)));
  EXPECT_THAT(f.message, HasSubstr("<- not on " + fake.str()));
  EXPECT_THAT(f.message, HasSubstr("origin unknown"));  // self was not seen being made
  EXPECT_EQ(f.arguments.size(), 2U);
  EXPECT_EQ(f.arguments[1].origin_op, "aten::ones");
}

TEST(Report, AStrayComputedFromAFactorysResultNamesBothOps) {
  MismatchRecord r;
  r.op = "aten::masked_fill_";
  r.count = 1;
  r.expected = fake_device();
  ArgRecord self;
  self.name = "self";
  self.device = fake_device();
  self.dtype = c10::ScalarType::Float;
  self.shape = {4, 4};
  ArgRecord mask = self;
  mask.name = "mask";
  mask.device = c10::Device("cpu");
  mask.dtype = c10::ScalarType::Bool;
  mask.stray = true;
  mask.origin_known = true;
  mask.origin = Origin{"aten::triu", kNoSite, "aten::ones", kNoSite};
  r.args = {self, mask};
  const SanitizerFinding f = make_mismatch_finding(r);
  EXPECT_THAT(f.message, HasSubstr("made by aten::triu from aten::ones"));
  EXPECT_EQ(f.arguments[1].origin_op, "aten::triu");
  EXPECT_EQ(f.arguments[1].derived_from_op, "aten::ones");
  EXPECT_EQ(f.arguments[0].derived_from_op, "");
}

TEST(Report, BuildsFromTheEngineWithLedgerRowsMergedBySite) {
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  at::Tensor data = at::rand({10, 2});
  for (int64_t i = 0; i < 10; ++i) data[i].to(fake_device(1));
  e.stop();
  const SanitizerReport r = build_report(e);
  ASSERT_EQ(r.transfers.size(), 1U);
  EXPECT_EQ(r.transfers[0].count, 10U);
  EXPECT_EQ(r.transfers[0].direction, "cpu -> " + fake_device(1).str());
  EXPECT_THAT(r.transfers[0].site, HasSubstr("report_test.cc:"));
  EXPECT_TRUE(r.ok());  // 10 copies is below small_copy_count
  EXPECT_TRUE(r.trace_json.empty());
}

}  // namespace
}  // namespace devcheck::sanitizer
