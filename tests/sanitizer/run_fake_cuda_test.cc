// `devcheck run --fake-cuda`: programs written for CUDA, unmodified, run their
// CUDA paths on this GPU-less machine through the preload library (C++) and
// devcheck's sitecustomize (Debian's /usr/bin/python3 with python3-torch),
// and the sanitizer watches them there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sanitizer/helpers.h"
#include "support/support.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck {
namespace {

using testing::marked_line;
using testing::ProcessResult;
using testing::sanitizer_program;
using testing::sanitizer_source;

std::string devcheck_cli() { return testing::binary_dir() + "/devcheck"; }
std::string scenarios() { return testing::source_dir() + "/python/tests/fake_cuda_scenarios.py"; }
std::string classifier() { return testing::source_dir() + "/examples/python/fashion_mnist.py"; }

ProcessResult devcheck_run(std::vector<std::string> options,
                           const std::vector<std::string>& command,
                           const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{devcheck_cli(), "run"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.emplace_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return testing::run_process(argv, env);
}

// Every scenario of python/tests/fake_cuda_scenarios.py, each in a process of
// its own, as devcheck run starts it: the preload library turns fake CUDA on
// when LibTorch loads, the sitecustomize gives torch.cuda its devices.
class FakeCudaScenario : public ::testing::TestWithParam<const char*> {};

TEST_P(FakeCudaScenario, PassesUnderDevcheckRunFakeCuda) {
  const std::string name = GetParam();
  const bool one_device = name == "load_beyond_count";
  const ProcessResult r = devcheck_run({one_device ? "--fake-cuda=1" : "--fake-cuda"},
                                       {DEVCHECK_PYTHON, scenarios(), name});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr(" ok")) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, FakeCudaScenario,
                         ::testing::Values("surface", "tensors", "training_equals_cpu",
                                           "mismatch_messages", "rnn_and_conv", "amp",
                                           "pinned_memory", "save_and_load", "load_beyond_count",
                                           "data_parallel", "forked_worker", "fresh_workers",
                                           "distributed", "bad_count"));

// float16 (python/tests/fake_cuda_fp16.py): the running torch's own autocast
// op lists, CUDA-only half paths and a GPT trained with GradScaler, each
// against float32 on the CPU; the scenario asserts its values and ends with
// its name and "ok" ("autocast lists ok: 116 entries ...").
class FakeCudaFp16Scenario : public ::testing::TestWithParam<const char*> {};

TEST_P(FakeCudaFp16Scenario, PassesUnderDevcheckRunFakeCuda) {
  const std::string name = GetParam();
  const ProcessResult r = devcheck_run(
      {"--fake-cuda"},
      {DEVCHECK_PYTHON, testing::source_dir() + "/python/tests/fake_cuda_fp16.py", name});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::string done = name;
  std::replace(done.begin(), done.end(), '_', ' ');
  EXPECT_THAT(r.output, HasSubstr(done + " ok")) << r.output;
  EXPECT_THAT(r.output, HasSubstr("(0 device mismatches")) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, FakeCudaFp16Scenario,
                         ::testing::Values("autocast_lists", "half_paths", "gpt_fp16"));

std::vector<std::string> loss_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("step ", 0) == 0 || line.rfind("accuracy ", 0) == 0) lines.push_back(line);
  }
  return lines;
}

TEST(RunFakeCuda, TheClassifierWrittenForCudaTrainsWithTheCpuRunsLossesBitForBit) {
  const ProcessResult cpu = testing::run_process(
      {DEVCHECK_PYTHON, classifier(), "--max-steps", "12", "--test-samples", "300"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_THAT(cpu.output, HasSubstr("device cpu"));
  const ProcessResult fake =
      devcheck_run({"--fake-cuda", "--mode", "fail"},
                   {DEVCHECK_PYTHON, classifier(), "--max-steps", "12", "--test-samples", "300"});
  ASSERT_EQ(fake.exit_code, 0) << fake.output;
  EXPECT_THAT(fake.output, HasSubstr("device cuda:0"));
  EXPECT_THAT(fake.output, HasSubstr("0 device mismatches"));
  // the sanitizer sees the CUDA path: every host->device copy, and the
  // sync that loss.item() makes each step
  EXPECT_THAT(fake.output, HasSubstr("cpu -> cuda:0"));
  EXPECT_THAT(fake.output, HasSubstr("synchronizing ops (count, op, device, site):"));
  const std::string code = testing::read_file(classifier());
  const auto item_line =
      std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(code.find("loss.item()")),
                 '\n') +
      1;
  EXPECT_THAT(fake.output, HasSubstr("fashion_mnist.py:" + std::to_string(item_line) + " (main)"));
  const std::vector<std::string> want = loss_lines(cpu.output);
  ASSERT_EQ(want.size(), 13U) << cpu.output;
  EXPECT_EQ(loss_lines(fake.output), want);
}

// The planted bug in the classifier: a tensor made in __init__
// without a device, multiplied in forward.
TEST(RunFakeCuda, APlantedBugFailsTheRunNamingTheLineThatMadeTheTensorAndTheOp) {
  const testing::TempDir dir;
  std::string code = testing::read_file(classifier());
  const std::string init = "        self.fc = nn.Linear(32 * 26 * 26, 10)\n";
  const std::string forward = "        return self.fc(torch.relu(self.conv(x)).flatten(1))\n";
  ASSERT_NE(code.find(init), std::string::npos);
  ASSERT_NE(code.find(forward), std::string::npos);
  code.replace(code.find(init), init.size(), init + "        self.scale = torch.ones(10)\n");
  code.replace(code.find(forward), forward.size(),
               "        return self.fc(torch.relu(self.conv(x)).flatten(1)) * self.scale\n");
  const auto script = dir / "seed_bug.py";
  testing::write_file(script, code);
  auto line_of = [&](const std::string& text) {
    return std::to_string(std::count(code.begin(),
                                     code.begin() + static_cast<std::ptrdiff_t>(code.find(text)),
                                     '\n') +
                          1);
  };
  const std::string stray = script.string() + ":" + line_of("self.scale = torch.ones(10)");
  const std::string op = script.string() + ":" + line_of("* self.scale");

  // On the CPU the bug is invisible: every tensor is on the CPU.
  const ProcessResult cpu =
      devcheck_run({"--mode", "fail"}, {DEVCHECK_PYTHON, script.string(), "--max-steps", "2"});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_THAT(cpu.output,
              HasSubstr("the program asked for CUDA and this machine has none, so its CUDA "
                        "paths did not run; devcheck run --fake-cuda runs them"));
  const ProcessResult fake = devcheck_run({"--fake-cuda", "--mode", "fail"},
                                          {DEVCHECK_PYTHON, script.string(), "--max-steps", "2"});
  EXPECT_EQ(fake.exit_code, 1) << fake.output;
  EXPECT_THAT(
      fake.output,
      AllOf(HasSubstr(
                "Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!"),
            HasSubstr("device mismatch in aten::mul at " + op),
            HasSubstr("made by aten::ones at " + stray)));
  EXPECT_THAT(fake.output, Not(HasSubstr("asked for CUDA")));
}

TEST(RunFakeCuda, TheEnvironmentVariableTurnsItOnAsTheFlagDoes) {
  const ProcessResult r =
      devcheck_run({}, {DEVCHECK_PYTHON, scenarios(), "tensors"}, {"DEVCHECK_FAKE_CUDA=2"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tensors ok"));
}

TEST(RunFakeCuda, AProgramThatNeverAskedForCudaGetsNoNote) {
  const ProcessResult r =
      devcheck_run({}, {DEVCHECK_PYTHON, "-c", "import torch; print(torch.ones(2).sum().item())"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("asked for CUDA")));
}

TEST(RunFakeCuda, ACppProgramWrittenForCudaRunsItsCudaPathAndItsBugIsNamed) {
  const std::string program = sanitizer_program("for_cuda");
  const ProcessResult cpu = devcheck_run({"--mode", "fail"}, {program, "bug"});
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_THAT(cpu.output, HasSubstr("device cpu"));
  EXPECT_THAT(cpu.output, HasSubstr("the program asked for CUDA and this machine has none"));
  const ProcessResult clean = devcheck_run({"--fake-cuda", "--mode", "fail"}, {program, "clean"});
  EXPECT_EQ(clean.exit_code, 0) << clean.output;
  EXPECT_THAT(clean.output, HasSubstr("device cuda loss"));
  const ProcessResult bug = devcheck_run({"--fake-cuda", "--mode", "fail"}, {program, "bug"});
  EXPECT_NE(bug.exit_code, 0) << bug.output;  // the uncaught c10::Error ends it
  EXPECT_THAT(
      bug.output,
      AllOf(HasSubstr(
                "Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!"),
            HasSubstr("for_cuda.cc:" + std::to_string(marked_line("programs/for_cuda.cc", "op"))),
            HasSubstr("for_cuda.cc:" +
                      std::to_string(marked_line("programs/for_cuda.cc", "stray")))));
}

TEST(RunFakeCuda, ABadCountIsBadInputNamingIt) {
  const ProcessResult flag = devcheck_run({"--fake-cuda=9"}, {DEVCHECK_PYTHON, "-c", "pass"});
  EXPECT_EQ(flag.exit_code, 2) << flag.output;
  EXPECT_THAT(flag.output, AllOf(HasSubstr("--fake-cuda"), HasSubstr("9")));
  const ProcessResult env =
      devcheck_run({}, {DEVCHECK_PYTHON, "-c", "pass"}, {"DEVCHECK_FAKE_CUDA=lots"});
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_THAT(env.output,
              HasSubstr("invalid DEVCHECK_FAKE_CUDA='lots': expected a number of fake CUDA devices "
                        "from 1 to 8"));
}

// "Many small copies" is a flood within one step: a batch per step (from a
// DataLoader or slices of one tensor), a module moved by one call, a state
// dict saved, loaded and read back, nn.DataParallel's broadcast, scatter and
// gather are not; per-sample copies of one batch and a device tensor filled
// element by element are, at their lines. Fake CUDA's torch.cuda.comm is one
// coalesced transfer per call at the user's line, never devcheck's file.
TEST(RunFakeCuda, ManySmallCopiesAreFloodsWithinAStepNeverOneCopyPerTensorPerStep) {
  const testing::TempDir dir;
  const std::string script = sanitizer_source("python/copies_per_step.py");
  const std::string json = (dir / "report.json").string();
  const ProcessResult r =
      devcheck_run({"--fake-cuda=2", "--json", json}, {DEVCHECK_PYTHON, script});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("copies 300 100")) << r.output;
  const auto report = nlohmann::json::parse(testing::read_file(json));
  ASSERT_EQ(report["processes"].size(), 1U) << report.dump(1);
  const auto& process = report["processes"][0];
  auto at = [&](const char* mark) {
    return script + ":" + std::to_string(marked_line("python/copies_per_step.py", mark));
  };
  std::vector<std::string> flooded;
  for (const auto& f : process["findings"]) {
    ASSERT_EQ(f["kind"], "small_copies") << f.dump(1);
    const std::string site = f["site"];
    flooded.push_back(site.substr(0, site.find(' ')));
  }
  EXPECT_THAT(flooded, ::testing::UnorderedElementsAre(at("flood_samples"), at("flood_fill")))
      << process["findings"].dump(1);
  for (const auto& f : process["findings"]) {
    if (std::string(f["site"]).rfind(at("flood_samples"), 0) == 0) {
      EXPECT_EQ(f["count"], 100);
      EXPECT_THAT(std::string(f["message"]), HasSubstr("100 cpu -> cuda copies of 12 B each"));
      EXPECT_THAT(std::string(f["message"]),
                  HasSubstr("100 of them pieces of the same tensors within one step"));
    }
  }
  bool broadcast = false;
  for (const auto& t : process["transfers"]) {
    const std::string site = t["site"];
    EXPECT_THAT(site, Not(HasSubstr("devcheck_fake_cuda/"))) << t.dump();
    if (t["op"] == "torch.cuda.comm.broadcast_coalesced") {
      broadcast = true;
      EXPECT_EQ(site.substr(0, site.find(' ')), at("parallel")) << t.dump();
      EXPECT_EQ(t["direction"], "cuda:0 -> cuda:1") << t.dump();
      EXPECT_EQ(t["count"], 70) << t.dump();  // one per forward, as NCCL's one call
    }
  }
  EXPECT_TRUE(broadcast) << process["transfers"].dump(1);
  EXPECT_THAT(r.output, Not(HasSubstr("devcheck_fake_cuda/")));
}

// Needs a real GPU: scripts/gpu-check.sh runs it (the refusal), it skips here.
TEST(RunFakeCuda, ARealGpuIsNeverHiddenUnlessForced_CUDA) {
  const ProcessResult probe = testing::run_process({devcheck_cli(), "doctor", "--json"});
  if (probe.output.find("\"cuda:0\"") == std::string::npos)
    GTEST_SKIP() << "no GPU on this machine";
  const ProcessResult refused =
      devcheck_run({"--fake-cuda"}, {DEVCHECK_PYTHON, "-c", "print('ran')"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, AllOf(HasSubstr("real CUDA device"), HasSubstr("--fake-cuda-force"),
                                    Not(HasSubstr("ran"))));
  const ProcessResult forced =
      devcheck_run({"--fake-cuda", "--fake-cuda-force"}, {DEVCHECK_PYTHON, scenarios(), "tensors"});
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
}

}  // namespace
}  // namespace devcheck
