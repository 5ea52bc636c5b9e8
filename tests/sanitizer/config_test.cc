// The process configuration: every DEVCHECK_SANITIZE* variable read the same
// way, bad values named, and what `devcheck run` writes read back.
#include "sanitizer/config.h"

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devcheck/error.h"

using ::testing::HasSubstr;

namespace devcheck::sanitizer {
namespace {

// An environment of its own, so tests never touch the process's.
class Env {
 public:
  Env(std::initializer_list<std::pair<const std::string, std::string>> vars) : vars_(vars) {}
  EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      const auto it = vars_.find(name);
      return it == vars_.end() ? nullptr : it->second.c_str();
    };
  }
  ProcessConfig read() const { return read_process_config(lookup()); }

 private:
  std::map<std::string, std::string> vars_;
};

std::string error_of(const Env& env) {
  try {
    env.read();
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProcessConfig, UnsetMeansOffStandaloneWithDefaultOptions) {
  const ProcessConfig c = Env({}).read();
  EXPECT_FALSE(c.enabled);
  EXPECT_EQ(c.role, Role::kStandalone);
  EXPECT_TRUE(c.owns_exit_status());
  EXPECT_EQ(c.options.mode(), SanitizerMode::kReport);
  EXPECT_TRUE(c.options.provenance());
  EXPECT_EQ(c.options.json_path(), "");
}

TEST(ProcessConfig, OffWordsTurnItOffInAnyCase) {
  for (const char* v : {"0", "off", "OFF", "false", "False", "no", "No"}) {
    EXPECT_FALSE(Env({{kEnvSanitize, v}}).read().enabled) << v;
  }
}

TEST(ProcessConfig, OnWordsTurnItOnInReportModeInAnyCase) {
  for (const char* v : {"1", "on", "ON", "true", "TRUE", "yes", "Yes"}) {
    const ProcessConfig c = Env({{kEnvSanitize, v}}).read();
    EXPECT_TRUE(c.enabled) << v;
    EXPECT_EQ(c.options.mode(), SanitizerMode::kReport) << v;
  }
}

TEST(ProcessConfig, AModeTurnsItOnInThatMode) {
  EXPECT_EQ(Env({{kEnvSanitize, "warn"}}).read().options.mode(), SanitizerMode::kWarn);
  EXPECT_EQ(Env({{kEnvSanitize, "Fail"}}).read().options.mode(), SanitizerMode::kFail);
  EXPECT_TRUE(Env({{kEnvSanitize, "report"}}).read().enabled);
}

TEST(ProcessConfig, ProvenanceTakesTheSameWordsAsEveryVariable) {
  for (const char* v : {"0", "off", "false", "No"}) {
    EXPECT_FALSE(Env({{kEnvProvenance, v}}).read().options.provenance()) << v;
  }
  for (const char* v : {"1", "on", "TRUE", "yes"}) {
    EXPECT_TRUE(Env({{kEnvProvenance, v}}).read().options.provenance()) << v;
  }
}

TEST(ProcessConfig, PathVariablesTakeAFileOrOff) {
  const ProcessConfig c = Env({{kEnvJson, "/tmp/r.json"}, {kEnvTrace, "t.json"}}).read();
  EXPECT_EQ(c.options.json_path(), "/tmp/r.json");
  EXPECT_EQ(c.options.trace_path(), "t.json");
  const ProcessConfig off =
      Env({{kEnvJson, "off"}, {kEnvTrace, "0"}, {kEnvReportDir, "False"}}).read();
  EXPECT_EQ(off.options.json_path(), "");
  EXPECT_EQ(off.options.trace_path(), "");
  EXPECT_EQ(off.role, Role::kStandalone);
}

TEST(ProcessConfig, AReportDirMakesItAChildOfDevcheckRunThatDoesNotOwnItsExitStatus) {
  const ProcessConfig c = Env({{kEnvSanitize, "fail"}, {kEnvReportDir, "/tmp/dir"}}).read();
  EXPECT_EQ(c.role, Role::kRunChild);
  EXPECT_EQ(c.report_dir, "/tmp/dir");
  EXPECT_FALSE(c.owns_exit_status());
  EXPECT_EQ(c.options.mode(), SanitizerMode::kFail);  // it still prints as it finds
}

TEST(ProcessConfig, ABadModeNamesTheVariableItsValueAndTheAcceptedValues) {
  const std::string e = error_of(Env({{kEnvSanitize, "loudly"}}));
  EXPECT_THAT(e, HasSubstr("DEVCHECK_SANITIZE='loudly' is not understood"));
  EXPECT_THAT(e, HasSubstr("off, 0, false, no; on, 1, true, yes (= report); report, warn or fail"));
}

TEST(ProcessConfig, ABadSwitchNamesTheVariableAndTheAcceptedValues) {
  const std::string e = error_of(Env({{kEnvProvenance, "maybe"}}));
  EXPECT_THAT(e, HasSubstr("DEVCHECK_SANITIZE_PROVENANCE='maybe' is not understood"));
  EXPECT_THAT(e, HasSubstr("off, 0, false, no, or on, 1, true, yes"));
}

TEST(ProcessConfig, AnOnWordWhereAFileIsExpectedIsAnError) {
  const std::string e = error_of(Env({{kEnvJson, "on"}}));
  EXPECT_THAT(e, HasSubstr("DEVCHECK_SANITIZE_JSON='on' is not understood"));
  EXPECT_THAT(e, HasSubstr("a file path, or off/0/false/no"));
}

TEST(ProcessConfig, WhatDevcheckRunWritesReadsBackTheSame) {
  ProcessConfig c;
  c.enabled = true;
  c.role = Role::kRunChild;
  c.report_dir = "/tmp/reports";
  c.options.mode(SanitizerMode::kWarn).provenance(false).trace_path("/tmp/reports/trace.json");
  std::map<std::string, std::string> vars;
  for (const std::string& kv : process_config_environment(c)) {
    const auto eq = kv.find('=');
    ASSERT_NE(eq, std::string::npos) << kv;
    EXPECT_EQ(kv.rfind("DEVCHECK_SANITIZE", 0), 0U) << kv;
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  const ProcessConfig back = read_process_config([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  EXPECT_TRUE(back.enabled);
  EXPECT_EQ(back.role, Role::kRunChild);
  EXPECT_EQ(back.report_dir, "/tmp/reports");
  EXPECT_EQ(back.options.mode(), SanitizerMode::kWarn);
  EXPECT_FALSE(back.options.provenance());
  EXPECT_EQ(back.options.json_path(), "");
  EXPECT_EQ(back.options.trace_path(), "/tmp/reports/trace.json");
}

TEST(ProcessConfig, ADisabledConfigIsWrittenAsOff) {
  const auto env = process_config_environment(ProcessConfig());
  EXPECT_THAT(env, ::testing::Contains("DEVCHECK_SANITIZE=off"));
  EXPECT_THAT(env, ::testing::Contains("DEVCHECK_SANITIZE_REPORT_DIR=off"));
}

TEST(ProcessConfig, TheProcessConfigurationIsWhatWasSet) {
  const ProcessConfig before = process_config();
  ProcessConfig c;
  c.role = Role::kRunChild;
  c.report_dir = "/somewhere";
  set_process_config(c);
  EXPECT_FALSE(process_config().owns_exit_status());
  EXPECT_EQ(process_config().report_dir, "/somewhere");
  set_process_config(before);
  EXPECT_TRUE(process_config().owns_exit_status());
}

}  // namespace
}  // namespace devcheck::sanitizer
