// The `devcheck` program itself (main.cc + forward.cc), run as a process:
// --help, --version, inspect and remap never load LibTorch; the commands that
// need it reach devcheck-torch with the same command line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "checkpoint/fixtures.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

namespace devcheck::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string devcheck_program() { return binary_dir() + "/devcheck"; }

// Every shared object the loader opened, from LD_DEBUG=libs ("calling init: PATH").
std::vector<std::string> loaded_libraries(const std::string& log) {
  std::vector<std::string> out;
  const std::regex init(R"(calling init: (\S+))");
  for (std::sregex_iterator it(log.begin(), log.end(), init), end; it != end; ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

void expect_no_libtorch(const std::string& log, const std::string& what) {
  const auto libs = loaded_libraries(log);
  EXPECT_FALSE(libs.empty()) << what << ": LD_DEBUG=libs reported nothing:\n" << log;
  for (const auto& lib : libs) {
    const std::string name = std::filesystem::path(lib).filename().string();
    EXPECT_EQ(name.rfind("libtorch", 0), std::string::npos) << what << " loaded " << lib;
    EXPECT_EQ(name.rfind("libc10", 0), std::string::npos) << what << " loaded " << lib;
    EXPECT_EQ(name.rfind("libdevcheck.so", 0), std::string::npos) << what << " loaded " << lib;
  }
}

// The program needs the C library and zlib alone: the format code is
// compiled into it, fmt header-only, libstdc++ and libgcc linked statically
// (its start-up is a bare process's, docs/cli.md); zlib is the system's, as
// Debian's policy asks.
TEST(DevcheckProgram, NeedsNoLibTorchNorAnyLibraryButTheCLibraryAndZlib) {
  const ProcessResult r = run_process({"readelf", "-d", devcheck_program()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[libc.so.6]"));
  EXPECT_THAT(r.output, HasSubstr("[libz.so.1]"));
  EXPECT_THAT(r.output, Not(HasSubstr("libdevcheck")));
  EXPECT_THAT(r.output, Not(HasSubstr("libtorch")));
  EXPECT_THAT(r.output, Not(HasSubstr("libc10")));
  EXPECT_THAT(r.output, Not(HasSubstr("libstdc++")));
  EXPECT_THAT(r.output, Not(HasSubstr("libfmt")));
  EXPECT_THAT(r.output, Not(HasSubstr("libmimalloc")));
}

TEST(DevcheckProgram, HelpVersionInspectAndRemapLoadNoLibTorch) {
  TempDir dir;
  const std::string out = (dir.path() / "cpu.pt").string();
  const std::vector<std::vector<std::string>> commands = {
      {"--help"},
      {"--version"},
      {"inspect", fixture("cuda1.pt")},
      {"inspect", "--json", fixture("legacy_cuda1.pt")},
      {"remap", fixture("cuda1.pt"), "-o", out, "--to", "cpu"},
  };
  for (const auto& args : commands) {
    std::vector<std::string> argv{devcheck_program()};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv, {"LD_DEBUG=libs"});
    EXPECT_EQ(r.exit_code, 0) << args.front() << ":\n" << r.output;
    expect_no_libtorch(r.output, "devcheck " + args.front());
  }
  EXPECT_TRUE(std::filesystem::exists(out));
}

TEST(DevcheckProgram, InspectAndRemapRunFromAFolderHoldingTheProgramAlone) {
  // A folder holding the program, nothing else: it loads no library of
  // devcheck's (and the loader finds the C library in the system folders).
  TempDir dir;
  const auto bin = dir.path() / "devcheck";
  std::filesystem::copy_file(devcheck_program(), bin);
  const std::string out = (dir.path() / "out.pt").string();
  const std::string library_path = "LD_LIBRARY_PATH=" + dir.path().string();
  const auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv{"env", "-i", library_path, "LD_DEBUG=libs", bin.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  };
  const ProcessResult inspect = run({"inspect", fixture("cuda1.pt")});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_THAT(inspect.output, HasSubstr("cuda:1"));
  expect_no_libtorch(inspect.output, "inspect");
  EXPECT_THAT(inspect.output, Not(HasSubstr("libdevcheck")));

  const ProcessResult remap = run({"remap", fixture("cuda1.pt"), "-o", out, "--to", "CUDA:0"});
  EXPECT_EQ(remap.exit_code, 0) << remap.output;
  EXPECT_THAT(remap.output, HasSubstr("cuda:1 -> cuda:0"));
  expect_no_libtorch(remap.output, "remap");

  const ProcessResult check = run({"inspect", "--json", out});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_THAT(check.output, HasSubstr("\"location\": \"cuda:0\""));
}

TEST(DevcheckProgram, LibTorchCommandsRunInTheHelperWithTheSameCommandLine) {
  const ProcessResult doctor = run_process({devcheck_program(), "doctor", "--json"});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.output;
  EXPECT_THAT(doctor.output, HasSubstr("\"torch_version\""));
  const ProcessResult help = run_process({devcheck_program(), "doctor", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr("--json"));
  // Usage errors come from the helper, with the CLI's words and exit code.
  const ProcessResult bad = run_process({devcheck_program(), "train", "--epochs", "x"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("Run 'devcheck --help' for usage."));
}

// The program finds libdevcheck_preload.so beside libdevcheck_sanitizer.so
// by itself (the test programs name it with DEVCHECK_PRELOAD, since they hold
// the sanitizer's objects and no such library of their own).
TEST(DevcheckProgram, RunFindsThePreloadLibraryBesideTheSanitizerLibrary) {
  EXPECT_TRUE(std::filesystem::exists(
      std::filesystem::path(shared_library("sanitizer")).parent_path() / "libdevcheck_preload.so"));
  const ProcessResult r = run_process({devcheck_program(), "run", "--", "/bin/sh", "-c", "exit 3"},
                                      {"DEVCHECK_PRELOAD="});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("preload library")));
}

// `devcheck train --nproc 2` end to end: the front launches two ranks of
// devcheck-torch, which train with DistributedDataParallel on Gloo; rank 0's
// report is stdout, unprefixed; each rank is on its own device (fake:0, fake:1).
TEST(DevcheckProgram, TrainNprocTwoTrainsTwoRanksAndRankZeroReports) {
  for (const std::string device : {"cpu", "fake"}) {
    TempDir dir;
    const std::string err = (dir / "stderr").string();
    const ProcessResult r =
        run_process({"/bin/sh", "-c",
                     "exec \"$0\" train --nproc 2 --device " + device +
                         " --max-steps 4 --batch-size 16 --threads 1 --json --no-sanitize 2>" + err,
                     devcheck_program()});
    const std::string stderr_text = read_file(err);
    ASSERT_EQ(r.exit_code, 0) << r.output << stderr_text;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["world_size"], 2) << device;
    EXPECT_EQ(j["rank"], 0) << device;
    EXPECT_EQ(j["global_step"], 4) << device;
    EXPECT_EQ(j["gradient_transport"], "shared memory") << device;
    EXPECT_EQ(j["epochs"][0]["samples"], 64) << device;  // the global batch, both ranks
    EXPECT_THAT(j["device_reason"].get<std::string>(), HasSubstr("rank 0 of 2"));
    if (device == "fake") {
      EXPECT_EQ(j["device"], fake_device(0).str());
    }
    EXPECT_THAT(stderr_text, Not(HasSubstr("[rank0]: {")));  // rank 0's report is stdout only
  }
}

TEST(DevcheckProgram, AMissingHelperIsOneClearMessageAndExitTwo) {
  const ProcessResult r = run_process({devcheck_program(), "doctor"},
                                      {"DEVCHECK_TORCH_HELPER=/nonexistent/devcheck-torch"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("devcheck: 'doctor' needs LibTorch"));
  EXPECT_THAT(r.output, HasSubstr("/nonexistent/devcheck-torch"));
  EXPECT_THAT(r.output, HasSubstr("DEVCHECK_TORCH_HELPER"));
}

}  // namespace
}  // namespace devcheck::testing
