// tools/devcheck/lint.cc, through the built `devcheck` program.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "lint_testing_fs.h"

namespace devcheck::lint {
namespace {
using testing::ScratchDir;

struct CliRun {
  int status;
  std::string out;
};

CliRun devcheck(const std::string& args) {
  const std::string command = std::string(DEVCHECK_CLI) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  CliRun run{-1, {}};
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    run.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

TEST(LintCli, ReportsFindingsWithExitOne) {
  ScratchDir dir;
  const std::string file = dir.write("t.py", "import torch\nstate = torch.load('m.pt')\n");
  const CliRun run = devcheck("lint " + file);
  EXPECT_EQ(run.status, 1) << run.out;
  EXPECT_NE(run.out.find(file + ":2:9: DC105 torch.load without map_location"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("Found 1 finding in 1 file (1 checked)."), std::string::npos) << run.out;
}

TEST(LintCli, ExitsZeroWhenCleanAndTwoOnBadInput) {
  ScratchDir dir;
  const std::string file = dir.write("ok.py", "import torch\ntorch.load(p, map_location='cpu')\n");
  EXPECT_EQ(devcheck("lint " + file).status, 0);
  const CliRun missing = devcheck("lint " + dir.path() + "/missing.py");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("missing.py: no such file or folder"), std::string::npos)
      << missing.out;
  const CliRun bad_rule = devcheck("lint --select DC999 " + file);
  EXPECT_EQ(bad_rule.status, 2);
  EXPECT_NE(bad_rule.out.find("no rule is 'DC999' (rules are DC100 to DC122)"), std::string::npos)
      << bad_rule.out;
}

TEST(LintCli, PrintsJsonSarifAndStatistics) {
  ScratchDir dir;
  const std::string file = dir.write("t.py", "import torch\ntorch.load(p)\ntorch.load(q)\n");
  const CliRun json = devcheck("lint --format json " + file);
  EXPECT_EQ(json.status, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out).size(), 2U) << json.out;
  const CliRun sarif = devcheck("lint --format sarif " + file);
  EXPECT_EQ(nlohmann::json::parse(sarif.out)["version"], "2.1.0") << sarif.out;
  const CliRun stats = devcheck("lint --statistics --ignore DC1 " + file);
  EXPECT_EQ(stats.status, 0) << stats.out;
  const CliRun counted = devcheck("lint --statistics " + file);
  EXPECT_NE(counted.out.find("     2  DC105  load-without-map-location"), std::string::npos)
      << counted.out;
}

TEST(LintCli, DiffShowsAndFixWrites) {
  ScratchDir dir;
  const std::string file = dir.write("t.py", "import torch\nx = torch.zeros(2)\nx.cuda()\n");
  const CliRun diff = devcheck("lint --diff " + file);
  EXPECT_EQ(diff.status, 1);
  EXPECT_NE(diff.out.find("-x.cuda()\n+x = x.cuda()\n"), std::string::npos) << diff.out;
  EXPECT_EQ(ScratchDir::read(file), "import torch\nx = torch.zeros(2)\nx.cuda()\n");
  const CliRun fix = devcheck("lint --fix -j 2 " + file);
  EXPECT_EQ(fix.status, 0) << fix.out;
  EXPECT_NE(fix.out.find("fixed " + file), std::string::npos) << fix.out;
  EXPECT_EQ(ScratchDir::read(file), "import torch\nx = torch.zeros(2)\nx = x.cuda()\n");
}

TEST(LintCli, DoesNotLoadLibTorch) {
  ScratchDir dir;
  const std::string file = dir.write("t.py", "x = 1\n");
  const CliRun run = devcheck("lint " + file + " && LD_DEBUG=libs " + DEVCHECK_CLI + " lint " +
                              file + " 2>&1 | grep -c 'libtorch\\|libc10' || true");
  EXPECT_NE(run.out.find("\n0\n"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace devcheck::lint
