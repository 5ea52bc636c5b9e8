// MapLocation's torch.load semantics and the Checkpoint report, text and JSON.
#include "devcheck/checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checkpoint/fixtures.h"
#include "devcheck/error.h"
#include "devcheck/format/error.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

using devcheck::testing::fixture;

TEST(MapLocation, KeepChangesNothing) {
  const MapLocation m = MapLocation::keep();
  EXPECT_TRUE(m.is_keep());
  EXPECT_EQ(m.apply("cuda:1"), "cuda:1");
  EXPECT_EQ(m.str(), "keep");
}

TEST(MapLocation, ToSendsEverythingThere) {
  const MapLocation m = MapLocation::to(c10::Device("cpu"));
  EXPECT_EQ(m.apply("cuda:1"), "cpu");
  EXPECT_EQ(m.apply("cpu"), "cpu");
}

TEST(MapLocation, ExactRulesRemapAndUnmatchedTagsPassThrough) {
  MapLocation m = MapLocation::keep();
  m.map("cuda:1", "cuda:0").map("cuda:2", "cpu");
  EXPECT_EQ(m.apply("cuda:1"), "cuda:0");
  EXPECT_EQ(m.apply("cuda:2"), "cpu");
  EXPECT_EQ(m.apply("cuda:3"), "cuda:3");
  EXPECT_EQ(m.apply("cuda"), "cuda");
  MapLocation both = MapLocation::to(c10::Device("meta"));
  both.map("cuda:1", "cpu");
  EXPECT_EQ(both.apply("cuda:1"), "cpu");
  EXPECT_EQ(both.apply("cuda:0"), "meta");
}

TEST(MapLocation, BadTargetIsAnInvalidArgumentNamingIt) {
  MapLocation m = MapLocation::keep();
  try {
    m.map("cuda:1", "gpu7");
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'gpu7'"));
    EXPECT_THAT(e.message(), HasSubstr("cuda:1"));
  }
}

TEST(MapLocation, TargetsAreParsedDevicesInTheirCanonicalSpelling) {
  MapLocation m = MapLocation::keep();
  m.map("cuda:1", " CUDA:0 ");
  EXPECT_EQ(m.apply("cuda:1"), "cuda:0");
  EXPECT_EQ(m.str(), "cuda:1->cuda:0");
}

TEST(MapLocation, KeywordsThatDependOnTheMachineAreNotTargets) {
  MapLocation m = MapLocation::keep();
  try {
    m.map("cuda:1", "auto");
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'auto' (the target of 'cuda:1') is not a device"));
  }
}

TEST(MapLocation, ADeviceTypeDevcheckDoesNotNameIsRefused) {
  try {
    MapLocation::to(c10::Device("xla"));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("device 'xla' is not one devcheck maps to"));
  }
}

TEST(Checkpoint, FormatErrorsArriveAsDevcheckErrorsWithTheSameMessage) {
  testing::TempDir dir;
  const auto path = (dir.path() / "empty.pt").string();
  testing::write_file(path, "");
  std::string format_message;
  try {
    format::Checkpoint::open(path);
  } catch (const format::FormatError& e) {
    format_message = e.message();
  }
  ASSERT_FALSE(format_message.empty());
  try {
    Checkpoint::open(path);
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.message(), format_message);
    EXPECT_EQ(e.code(), ErrorCode::kFormat);
    EXPECT_THAT(e.message(), HasSubstr("empty.pt"));
  }
  EXPECT_THROW(Checkpoint::open((dir.path() / "missing.pt").string()), IoError);
}

TEST(Checkpoint, TextReportHasFactsTableDevicesAndFindings) {
  const Checkpoint cp = Checkpoint::open(fixture("cuda1.pt"));
  const std::string text = cp.to_text();
  EXPECT_THAT(text, HasSubstr("torch.save zip archive"));
  EXPECT_THAT(text, HasSubstr("KEY"));
  EXPECT_THAT(text, HasSubstr("model.0.weight"));
  EXPECT_THAT(text, HasSubstr("float32"));
  EXPECT_THAT(text, HasSubstr("[3, 4]"));
  EXPECT_THAT(text, HasSubstr("cuda:1"));
  EXPECT_THAT(text, HasSubstr("(not on this machine)"));
  EXPECT_THAT(text, HasSubstr("[warning] device-unavailable"));
  EXPECT_FALSE(cp.has_errors());
}

TEST(Checkpoint, JsonHasTheDocumentedFields) {
  const Checkpoint cp = Checkpoint::open(fixture("dtypes.pt"));
  const auto j = nlohmann::json::parse(cp.to_json());
  EXPECT_EQ(j["format"]["kind"], "zip");
  EXPECT_EQ(j["format"]["version"], "3");
  ASSERT_TRUE(j["tensors"].is_array());
  bool saw_bf16 = false;
  for (const auto& t : j["tensors"]) {
    for (const char* field : {"key", "dtype", "shape", "device", "nbytes", "storage"}) {
      EXPECT_TRUE(t.contains(field)) << field;
    }
    if (t["key"] == "bfloat16") {
      saw_bf16 = true;
      EXPECT_EQ(t["dtype"], "bfloat16");
      EXPECT_EQ(t["shape"], nlohmann::json::array({2, 3}));
      EXPECT_EQ(t["nbytes"], 12);
    }
  }
  EXPECT_TRUE(saw_bf16);
  EXPECT_EQ(j["devices"]["cpu"]["tensors"], cp.entries().size());
  EXPECT_TRUE(j["findings"].is_array());
}

TEST(Checkpoint, FindingsInJsonHaveCodeSeverityMessage) {
  const auto j = nlohmann::json::parse(Checkpoint::open(fixture("evil_system.pt")).to_json());
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_EQ(j["findings"][0]["code"], "unsafe-global");
  EXPECT_EQ(j["findings"][0]["severity"], "error");
  EXPECT_THAT(j["findings"][0]["message"].get<std::string>(), HasSubstr("posix.system"));
}

TEST(Checkpoint, DevicesTotalStorageBytesPerLocation) {
  const auto devices = Checkpoint::open(fixture("mixed.pt")).devices();
  ASSERT_EQ(devices.size(), 2u);
  for (const auto& d : devices) {
    if (d.device == "cuda:0") {
      EXPECT_EQ(d.nbytes, 12u);
      EXPECT_EQ(d.tensors, 1u);
    } else {
      EXPECT_EQ(d.device, "cpu");
      EXPECT_EQ(d.nbytes, 8u);
      EXPECT_TRUE(d.available);
    }
  }
}

}  // namespace
}  // namespace devcheck
