// The fingerprint each rank sends, and the verdict every rank reaches from
// all of them (the two-process runs are in ddp_test.cc).
#include "distributed/fingerprint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "devcheck/error.h"

namespace devcheck::detail {
namespace {

using ::testing::HasSubstr;

ModuleFingerprint rank_on(int rank, const std::string& device, const std::string& weight_device,
                          const std::string& shape = "[4, 3]") {
  ModuleFingerprint f;
  f.rank = rank;
  f.local_rank = rank;
  f.device = device;
  f.tensors = {{"parameter", "fc.weight", shape, "float32", weight_device},
               {"buffer", "bn.running_mean", "[4]", "float32", device}};
  return f;
}

TEST(Fingerprint, SerializeAndParseRoundTrip) {
  const ModuleFingerprint f = rank_on(1, "privateuseone:1", "privateuseone:1");
  const ModuleFingerprint back = ModuleFingerprint::parse(f.serialize());
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.device, "privateuseone:1");
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_EQ(back.tensors[0].name, "fc.weight");
  EXPECT_EQ(back.tensors[0].shape, "[4, 3]");
  EXPECT_EQ(back.tensors[1].kind, "buffer");
}

TEST(Fingerprint, TextItDidNotWriteIsRefused) {
  try {
    ModuleFingerprint::parse("not a fingerprint");
    FAIL() << "parsed";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("fingerprint"));
  }
}

TEST(Fingerprint, AgreeingRanksPass) {
  EXPECT_NO_THROW(check_fingerprints({rank_on(0, "cpu", "cpu"), rank_on(1, "cpu", "cpu")}));
}

TEST(Fingerprint, ATensorOffItsRanksDeviceNamesTheRankTheTensorAndBothDevices) {
  try {
    check_fingerprints({rank_on(0, "privateuseone:0", "privateuseone:0"),
                        rank_on(1, "privateuseone:1", "privateuseone:0")});
    FAIL() << "no error";
  } catch (const DeviceMismatchError& e) {
    EXPECT_THAT(e.message(), HasSubstr("rank 1"));
    EXPECT_THAT(e.message(), HasSubstr("fc.weight"));
    EXPECT_THAT(e.message(), HasSubstr("privateuseone:0"));
    EXPECT_THAT(e.message(), HasSubstr("privateuseone:1"));
  }
}

TEST(Fingerprint, AShapeDifferenceNamesTheParameterAndBothShapes) {
  try {
    check_fingerprints({rank_on(0, "cpu", "cpu"), rank_on(1, "cpu", "cpu", "[5, 3]")});
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("fc.weight"));
    EXPECT_THAT(e.message(), HasSubstr("[4, 3]"));
    EXPECT_THAT(e.message(), HasSubstr("[5, 3]"));
    EXPECT_THAT(e.message(), HasSubstr("rank 1"));
  }
}

}  // namespace
}  // namespace devcheck::detail
