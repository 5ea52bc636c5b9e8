// The public sanitizer API, in-process, with the fake accelerator as the second device.
#include "devcheck/sanitizer.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <thread>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "sanitizer/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck {
namespace {

const c10::Device kCpu("cpu");

// The second device: it computes, and raises on mixed devices as CUDA does.
c10::Device fake(int index = 0) { return fake_device(index); }
at::TensorOptions on_fake() { return at::TensorOptions().device(fake()); }

// A CPU matrix times a vector on the fake device: LibTorch raises inside mm.
void mismatched_matmul() {
  try {
    at::matmul(at::ones({1, 3}), at::ones({3}, on_fake()));
  } catch (const c10::Error&) {
  }
}

const char* const kSameDevice = "Expected all tensors to be on the same device";

// Calls `f` `times` times from one call site. A site is the whole call stack,
// and the compiler may unroll a loop with a small constant count into several
// call sites; it cannot unroll one whose count it does not know.
void from_one_site(int times, const std::function<void()>& f) {
  volatile int n = times;
  for (int i = 0; i < n; ++i) f();
}

std::string here(int line) { return "sanitizer_test.cc:" + std::to_string(line); }

SanitizerOptions quiet() { return SanitizerOptions().print_summary(false); }

const SanitizerArgument* arg(const SanitizerFinding& f, const std::string& name) {
  for (const auto& a : f.arguments) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

TEST(Sanitizer, ReportsPlantedMismatchWithBothArgumentsTheirDevicesAndStrayOrigin) {
  Sanitizer sanitizer(quiet());
  at::Tensor x = at::ones({3}, on_fake());
  const int stray_line = __LINE__ + 1;
  at::Tensor y = at::ones({3});
  const int op_line = __LINE__ + 2;
  try {
    at::add(x, y);
    FAIL() << "LibTorch raises for a fake + cpu add";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr(kSameDevice));
  }
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.op, "aten::add");
  EXPECT_EQ(f.site, here(op_line));
  EXPECT_EQ(f.expected, fake());
  const auto* self = arg(f, "self");
  const auto* other = arg(f, "other");
  ASSERT_NE(self, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(self->device, fake());
  EXPECT_FALSE(self->stray);
  EXPECT_EQ(other->device, kCpu);
  EXPECT_TRUE(other->stray);
  EXPECT_EQ(other->origin_op, "aten::ones");
  EXPECT_EQ(other->origin, here(stray_line));
  EXPECT_THAT(f.message, HasSubstr("[devcheck] device mismatch in aten::add at " + here(op_line)));
  EXPECT_THAT(f.message, HasSubstr("expected every tensor on " + fake().str() + ", found " +
                                   fake().str() + " (1 tensor) and cpu (1 tensor)"));
  EXPECT_THAT(f.message, HasSubstr("<- not on " + fake().str()));
  EXPECT_THAT(f.message, HasSubstr("made by aten::ones at " + here(stray_line)));
  EXPECT_THAT(f.fix, HasSubstr("move other to " + fake().str() + " once, where it is made (" +
                               here(stray_line) + ")"));
}

TEST(Sanitizer, ReportsACpuTimesDeviceMatmulOnceThoughItFailsInsideMm) {
  Sanitizer sanitizer(quiet());
  at::Tensor w = at::ones({4, 3}, on_fake());
  const int stray_line = __LINE__ + 1;
  at::Tensor x = at::rand({2, 4});
  const int op_line = __LINE__ + 1;
  EXPECT_THROW(at::matmul(x, w), c10::Error);
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();  // not again for the inner mm
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.op, "aten::matmul");
  EXPECT_EQ(f.site, here(op_line));
  EXPECT_EQ(f.expected, fake());
  const auto* self = arg(f, "self");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->stray);
  EXPECT_EQ(self->origin_op, "aten::rand");
  EXPECT_EQ(self->origin, here(stray_line));
}

// meta is the point here: LibTorch 1.13 lets a cpu x meta matmul pass, and
// only the sanitizer sees it.
TEST(Sanitizer, ReportsTheSilentCpuTimesMetaMatmulOnce) {
  Sanitizer sanitizer(quiet());
  at::Tensor w = at::ones({4, 3}, at::TensorOptions().device(c10::kMeta));
  const int stray_line = __LINE__ + 1;
  at::Tensor x = at::rand({2, 4});
  const int op_line = __LINE__ + 1;
  at::Tensor y = at::matmul(x, w);  // LibTorch 1.13 does not raise
  EXPECT_TRUE(y.is_meta());
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();  // not again for the inner mm
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.op, "aten::matmul");
  EXPECT_EQ(f.site, here(op_line));
  const auto* self = arg(f, "self");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->stray);
  EXPECT_EQ(self->origin_op, "aten::rand");
  EXPECT_EQ(self->origin, here(stray_line));
}

TEST(Sanitizer, PerSampleCopiesToTheDeviceAreABatchingFindingAtTheirSite) {
  Sanitizer sanitizer(quiet());
  at::Tensor data = at::rand({200, 3});
  std::vector<at::Tensor> samples;
  const int copy_line = __LINE__ + 2;
  for (int64_t i = 0; i < data.size(0); ++i) {
    samples.push_back(data[i].to(fake()));
  }
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.findings.size(), 1U) << r.to_text();
  const SanitizerFinding& f = r.findings[0];
  EXPECT_EQ(f.kind, FindingKind::kSmallCopies);
  EXPECT_EQ(f.site, here(copy_line));
  EXPECT_EQ(f.count, 200U);
  EXPECT_EQ(f.bytes, 200U * 3 * 4);
  EXPECT_EQ(f.direction, "cpu -> " + fake().str());
  EXPECT_THAT(f.message, HasSubstr("200 cpu -> " + fake().str() + " copies of 12 B each"));
  EXPECT_THAT(f.fix, HasSubstr("stack them and copy once"));
  ASSERT_FALSE(r.transfers.empty());
  EXPECT_EQ(r.transfers[0].site, here(copy_line));
  EXPECT_EQ(r.transfers[0].count, 200U);
  EXPECT_TRUE(at::equal(samples[199].cpu(), data[199]));
}

TEST(Sanitizer, OncePerBatchCopiesBetweenRealWorkAreNotAFinding) {
  Sanitizer sanitizer(quiet());
  at::Tensor labels = at::zeros({32}, at::kLong);
  at::Tensor work = at::ones({4});
  for (int step = 0; step < 100; ++step) {
    at::Tensor on_device = labels.to(fake());  // one small copy per step
    for (int i = 0; i < 40; ++i) work = work * 1.0;
  }
  const SanitizerReport r = sanitizer.report();
  EXPECT_TRUE(r.ok()) << r.to_text();
  ASSERT_EQ(r.transfers.size(), 1U);
  EXPECT_EQ(r.transfers[0].count, 100U);
}

TEST(Sanitizer, BugFreeProgramHasNoFinding) {
  Sanitizer sanitizer(quiet());
  at::Tensor w = at::ones({4, 3}, on_fake());
  at::Tensor batch = at::rand({16, 4}).to(fake());
  at::Tensor y = at::matmul(batch, w) * 2.0;
  y = y + at::scalar_tensor(2.0);  // a 0-dim CPU tensor may meet any device
  y = y * 3.0;
  at::Tensor c = at::cat({y, y});
  at::Tensor cpu = at::rand({8, 8});
  cpu = at::mm(cpu, cpu).sum(0) + at::ones({8});
  const SanitizerReport r = sanitizer.report();
  EXPECT_TRUE(r.ok()) << r.to_text();
  EXPECT_GT(r.ops_checked, 5U);
  // and it computed: the CPU's result, on the fake device
  EXPECT_EQ(c.device(), fake());
  const at::Tensor want = (at::matmul(batch.cpu(), w.cpu()) * 2.0 + 2.0) * 3.0;
  EXPECT_TRUE(at::equal(c.cpu(), at::cat({want, want})));
}

TEST(Sanitizer, NamesEachTensorOfAListArgument) {
  Sanitizer sanitizer(quiet());
  at::Tensor a = at::ones({2});
  at::Tensor b = at::ones({2}, on_fake());
  EXPECT_THROW(at::cat({a, b}), c10::Error);
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();
  EXPECT_NE(arg(r.findings[0], "tensors[0]"), nullptr);
  EXPECT_NE(arg(r.findings[0], "tensors[1]"), nullptr);
}

TEST(Sanitizer, TensorsItDidNotSeeBeingMadeHaveUnknownOrigin) {
  Sanitizer sanitizer(quiet());
  float buffer[3] = {1, 2, 3};
  at::Tensor y = at::from_blob(buffer, {3});
  at::Tensor x = at::ones({3}, on_fake());
  EXPECT_THROW(at::add(x, y), c10::Error);
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U);
  const auto* other = arg(r.findings[0], "other");
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(other->origin.empty());
  EXPECT_THAT(r.findings[0].message, HasSubstr("origin unknown"));
}

TEST(Sanitizer, WithoutProvenanceStillFindsTheMismatch) {
  Sanitizer sanitizer(quiet().provenance(false));
  at::Tensor x = at::ones({3}, on_fake());
  at::Tensor y = at::ones({3});
  EXPECT_THROW(at::matmul(y.unsqueeze(0), x.unsqueeze(1)), c10::Error);
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U);
  EXPECT_EQ(r.tensors_tracked, 0U);
  EXPECT_THAT(r.findings[0].message, HasSubstr("origin unknown"));
}

TEST(Sanitizer, ExplainGivesTheAccountOfTheLastMismatchOnThisThread) {
  Sanitizer sanitizer(quiet());
  at::Tensor x = at::ones({3}, on_fake());
  const int stray_line = __LINE__ + 1;
  at::Tensor y = at::ones({3});
  try {
    at::add(x, y);
    FAIL() << "LibTorch raises for a fake + cpu add";
  } catch (const c10::Error& e) {
    const std::string text = explain(e);
    EXPECT_THAT(text, HasSubstr(std::string(kSameDevice) + ", but found at least two devices, " +
                                fake().str() + " and cpu!"));
    EXPECT_THAT(text, HasSubstr("[devcheck] device mismatch in aten::add"));
    EXPECT_THAT(text, HasSubstr("made by aten::ones at " + here(stray_line)));
  }
}

TEST(Sanitizer, ExplainWithoutAFindingSaysSoAndHowToGetOne) {
  const Error e(ErrorCode::kDeviceMismatch, "some op failed");
  const std::string text = explain(e);
  EXPECT_THAT(text, HasSubstr("some op failed"));
  EXPECT_THAT(text, HasSubstr("run under devcheck::Sanitizer"));
}

TEST(Sanitizer, WarnModePrintsEachFindingOnceWhenItHappens) {
  ::testing::internal::CaptureStderr();
  {
    Sanitizer sanitizer(quiet().mode(SanitizerMode::kWarn));
    from_one_site(3, mismatched_matmul);
    EXPECT_EQ(sanitizer.report().findings[0].count, 3U);
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("[devcheck] device mismatch in aten::matmul"));
  EXPECT_EQ(err.find("device mismatch"), err.rfind("device mismatch"));  // once
}

TEST(Sanitizer, ReportModeIsQuietUntilTheEndAndPrintsOnlyWhenSomethingWasFound) {
  ::testing::internal::CaptureStderr();
  {
    Sanitizer sanitizer;
    at::Tensor x = at::ones({3}) + at::ones({3});
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ::testing::internal::CaptureStderr();
  {
    Sanitizer sanitizer;
    mismatched_matmul();
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("1 finding"));
}

TEST(Sanitizer, OnlyOneAtATime) {
  Sanitizer first(quiet());
  try {
    Sanitizer second(quiet());
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("already installed"));
  }
  EXPECT_TRUE(Sanitizer::active());
}

TEST(Sanitizer, EndsCleanlyAndAFreshOneStartsEmpty) {
  {
    Sanitizer first(quiet());
    mismatched_matmul();
  }
  EXPECT_FALSE(Sanitizer::active());
  mismatched_matmul();  // unwatched
  Sanitizer second(quiet());
  EXPECT_TRUE(second.report().ok());
}

TEST(Sanitizer, ClearFindingsStartsANewPartThatStillKnowsWhereOlderTensorsWereMade) {
  Sanitizer sanitizer(quiet());
  // The first part: a tensor made, a mismatch, a sync.
  at::Tensor x = at::ones({3}, on_fake());
  const int stray_line = __LINE__ + 1;
  at::Tensor stray = at::arange(3);
  mismatched_matmul();
  x.sum().item();
  ASSERT_EQ(sanitizer.report().mismatch_count(), 1U);

  sanitizer.clear_findings();
  const SanitizerReport empty = sanitizer.report();
  EXPECT_TRUE(empty.ok()) << empty.to_text();
  EXPECT_TRUE(empty.syncs.empty()) << empty.to_text();
  EXPECT_EQ(empty.ops_checked, 0U);
  try {
    at::Tensor z = x.mul(stray);  // the second part uses the first part's tensor
    FAIL() << "LibTorch raises for a fake * cpu mul";
  } catch (const c10::Error& e) {
    // explain() names this part's mismatch, not the cleared one.
    EXPECT_THAT(explain(e), HasSubstr("[devcheck] device mismatch in aten::mul"));
  }
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();
  EXPECT_EQ(r.findings[0].op, "aten::mul");
  const auto* other = arg(r.findings[0], "other");
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(other->stray);
  EXPECT_EQ(other->origin_op, "aten::arange");
  EXPECT_EQ(other->origin, here(stray_line));

  sanitizer.clear();  // everything: origins too
  try {
    at::Tensor z = x.mul(stray);
  } catch (const c10::Error&) {
  }
  const auto* forgotten = arg(sanitizer.report().findings.at(0), "other");
  ASSERT_NE(forgotten, nullptr);
  EXPECT_EQ(forgotten->origin, "");
}

TEST(Sanitizer, ExplainAfterTheFindingWasClearedSaysItSawNone) {
  Sanitizer sanitizer(quiet());
  try {
    at::add(at::ones({3}, on_fake()), at::ones({3}));
    FAIL() << "LibTorch raises for a fake + cpu add";
  } catch (const c10::Error& e) {
    sanitizer.clear_findings();
    const std::string text = explain(e);
    EXPECT_THAT(text, HasSubstr(kSameDevice));
    EXPECT_THAT(text, HasSubstr("[devcheck] the sanitizer saw no device mismatch on this thread"));
    EXPECT_THAT(text, Not(HasSubstr("device mismatch in aten::add")));
  }
}

TEST(Sanitizer, WritesJsonAndTraceWhenItEnds) {
  testing::TempDir dir;
  const std::string json_path = (dir / "report.json").string();
  const std::string trace_path = (dir / "trace.json").string();
  {
    Sanitizer sanitizer(quiet().json_path(json_path).trace_path(trace_path));
    at::Tensor data = at::rand({100, 2});
    for (int64_t i = 0; i < 100; ++i) data[i].to(fake());
    mismatched_matmul();
  }
  const auto j = nlohmann::json::parse(testing::read_file(json_path));
  EXPECT_EQ(j["summary"]["mismatches"], 1);
  EXPECT_EQ(j["summary"]["findings"], 2);
  EXPECT_EQ(j["summary"]["copies"], 100);
  EXPECT_EQ(j["findings"][0]["kind"], "device_mismatch");
  EXPECT_EQ(j["findings"][0]["arguments"][0]["device"], "cpu");
  const auto t = nlohmann::json::parse(testing::read_file(trace_path));
  int copies = 0;
  for (const auto& ev : t["traceEvents"]) {
    if (ev["ph"] == "X" && ev["name"] == "aten::to") {  // the op the loop calls
      ++copies;
      EXPECT_EQ(ev["args"]["direction"], "cpu -> " + fake().str());
      EXPECT_EQ(ev["args"]["bytes"], 8);
    }
  }
  EXPECT_EQ(copies, 100);
}

TEST(Sanitizer, CountsSynchronizingOpsPerSite) {
  Sanitizer sanitizer(quiet());
  at::Tensor x = at::ones({1}, on_fake());
  double total = 0;
  for (int i = 0; i < 5; ++i) total += x.item<double>();  // the host waits for the device
  EXPECT_EQ(total, 5.0);
  at::ones({1}).item();  // a CPU item() waits for nothing
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.syncs.size(), 1U) << r.to_text();
  EXPECT_EQ(r.syncs[0].op, "aten::item");  // the op the program called
  EXPECT_EQ(r.syncs[0].device, fake().str());
  EXPECT_EQ(r.syncs[0].count, 5U);
  EXPECT_THAT(r.syncs[0].site, HasSubstr("sanitizer_test.cc:"));
}

TEST(Sanitizer, ThreadsReportConcurrently) {
  Sanitizer sanitizer(quiet());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([] {
      at::Tensor w = at::ones({3}, on_fake());
      for (int i = 0; i < 50; ++i) {
        at::Tensor x = at::ones({1, 3});
        try {
          at::matmul(x, w);
        } catch (const c10::Error&) {
        }
        x.to(fake());
      }
    });
  }
  for (auto& t : threads) t.join();
  const SanitizerReport r = sanitizer.report();
  ASSERT_EQ(r.mismatch_count(), 1U) << r.to_text();  // one site
  EXPECT_EQ(r.findings[0].count, 200U);
  std::uint64_t copies = 0;
  for (const auto& t : r.transfers) copies += t.count;
  EXPECT_EQ(copies, 200U);
}

TEST(SanitizerMode, ParsesItsNamesAndRejectsOthersByName) {
  EXPECT_EQ(parse_sanitizer_mode("warn"), SanitizerMode::kWarn);
  EXPECT_EQ(parse_sanitizer_mode("FAIL"), SanitizerMode::kFail);
  EXPECT_STREQ(to_string(SanitizerMode::kReport), "report");
  try {
    parse_sanitizer_mode("loud");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'loud'"));
    EXPECT_THAT(e.message(), HasSubstr("report, warn or fail"));
  }
}

TEST(SanitizerOptions, FromEnvReadsModePathsAndProvenance) {
  setenv("DEVCHECK_SANITIZE", "warn", 1);
  setenv("DEVCHECK_SANITIZE_JSON", "/tmp/r.json", 1);
  setenv("DEVCHECK_SANITIZE_PROVENANCE", "0", 1);
  const SanitizerOptions o = SanitizerOptions::from_env();
  EXPECT_EQ(o.mode(), SanitizerMode::kWarn);
  EXPECT_EQ(o.json_path(), "/tmp/r.json");
  EXPECT_FALSE(o.provenance());
  setenv("DEVCHECK_SANITIZE", "sometimes", 1);
  EXPECT_THROW(SanitizerOptions::from_env(), InvalidArgumentError);
  unsetenv("DEVCHECK_SANITIZE");
  unsetenv("DEVCHECK_SANITIZE_JSON");
  unsetenv("DEVCHECK_SANITIZE_PROVENANCE");
}

TEST(SanitizerOptions, DefaultsAreDocumented) {
  const SanitizerOptions o;
  EXPECT_EQ(o.mode(), SanitizerMode::kReport);
  EXPECT_TRUE(o.provenance());
  EXPECT_FALSE(o.trace());
  EXPECT_EQ(o.small_copy_bytes(), 64U * 1024);
  EXPECT_EQ(o.small_copy_count(), 64U);
  EXPECT_EQ(o.max_tracked_tensors(), 65536U);
}

}  // namespace
}  // namespace devcheck
