// `devcheck run -- python3 ...` decides how a Python program is watched
// before it starts (src/sanitizer/python_run.cc). Another torch is a stand-in
// tree on PYTHONPATH (torch/__init__.py and torch/version.py), as a wheel lays
// it out; the real torch is Debian's python3-torch, devcheck's own LibTorch.
#include "sanitizer/python_run.h"

#include <torch/version.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devcheck/error.h"
#include "process/environment.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace devcheck::sanitizer {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A folder for PYTHONPATH with a torch of version `torch` and, when
// `package_torch` is not empty, a devcheck package built for that torch.
class FakePython : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "devcheck-python-run-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  void torch(const std::string& version, const std::string& cuda = "None") {
    write(dir_ / "torch/__init__.py", "raise SystemExit('the stand-in torch was imported')\n");
    write(dir_ / "torch/version.py", "__version__ = '" + version + "'\ndebug = False\ncuda: " +
                                         "Optional[str] = " + cuda + "\n");
  }
  void package(const std::string& torch_version) {
    write(dir_ / "devcheck/__init__.py", "");
    write(dir_ / "devcheck/_build_info.py", "TORCH_VERSION = '" + torch_version +
                                                "'\nCUDA_VERSION = None\nCXX11_ABI = True\n" +
                                                "SOURCE_DIR = '/src/devcheck'\n");
  }
  std::vector<std::string> env() const {
    std::vector<std::string> e = detail::environment_without({"LD_PRELOAD="});
    e.push_back("PYTHONPATH=" + dir_.string());
    return e;
  }
  PythonRunPlan plan(const std::vector<std::string>& command,
                     const SanitizerOptions& options = SanitizerOptions()) const {
    return plan_python_run(command, env(), options, "/tmp/reports");
  }
  std::string refusal(const std::vector<std::string>& command) const {
    try {
      plan(command);
    } catch (const InvalidArgumentError& e) {
      return e.message();
    }
    return "(no error)";
  }

  fs::path dir_;
};

const std::string kBuilt =
    std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);

TEST(PythonCommand, InterpretersAreKnownByNameOrPath) {
  EXPECT_TRUE(is_python_interpreter("python"));
  EXPECT_TRUE(is_python_interpreter("python3"));
  EXPECT_TRUE(is_python_interpreter("python3.11"));
  EXPECT_TRUE(is_python_interpreter("/opt/venv/bin/python"));
  EXPECT_FALSE(is_python_interpreter("ipython"));
  EXPECT_FALSE(is_python_interpreter("python3-config"));
  EXPECT_FALSE(is_python_interpreter("./train"));
}

TEST(PythonCommand, SplitsInterpreterOptionsScriptAndArguments) {
  const PythonCommand c =
      parse_python_command({"python3", "-u", "-X", "dev", "-Wignore", "train.py", "-m", "x"});
  EXPECT_TRUE(c.runnable);
  EXPECT_THAT(c.interpreter, ElementsAre("python3", "-u", "-X", "dev", "-Wignore"));
  EXPECT_EQ(c.script, "train.py");
  EXPECT_THAT(c.args, ElementsAre("-m", "x"));
}

TEST(PythonCommand, ModuleFormKeepsEveryArgumentAfterTheModule) {
  const PythonCommand c = parse_python_command({"python3", "-B", "-m", "pkg.train", "--lr", "1"});
  EXPECT_TRUE(c.runnable);
  EXPECT_THAT(c.interpreter, ElementsAre("python3", "-B"));
  EXPECT_EQ(c.module, "pkg.train");
  EXPECT_THAT(c.args, ElementsAre("--lr", "1"));
}

TEST(PythonCommand, CodeStdinInteractiveAndUnknownOptionsAreNotRunnable) {
  EXPECT_FALSE(parse_python_command({"python3", "-c", "import torch"}).runnable);
  EXPECT_FALSE(parse_python_command({"python3", "-", "x"}).runnable);
  EXPECT_FALSE(parse_python_command({"python3"}).runnable);
  EXPECT_FALSE(parse_python_command({"python3", "-i", "x.py"}).runnable);
  EXPECT_FALSE(parse_python_command({"python3", "--check-hash-based-pycs", "x", "a.py"}).runnable);
}

TEST_F(FakePython, AnotherTorchWithoutThePackageIsRefusedNamingBothVersionsAndThePipCommand) {
  torch("9.9.1+cu999", "'99.9'");
  const std::string message = refusal({DEVCHECK_PYTHON, "train.py"});
  EXPECT_THAT(message,
              HasSubstr("imports torch 9.9.1+cu999 (CUDA 99.9) from " + (dir_ / "torch").string()));
  EXPECT_THAT(message, HasSubstr("this devcheck was built for LibTorch " + kBuilt));
  EXPECT_THAT(message, HasSubstr("that Python has no devcheck package; the program was not "
                                 "started (exit status 2) rather than run unwatched"));
  EXPECT_THAT(message, HasSubstr("fix: install the package into that Python (it builds devcheck "
                                 "for torch 9.9.1+cu999): "));
  EXPECT_THAT(message, HasSubstr(" -m pip install --no-build-isolation --no-deps "));
}

TEST_F(FakePython, APackageForThatTorchRunsTheProgramThroughItWithTheSameFlags) {
  torch("9.9.1");
  package("9.9.1");
  SanitizerOptions options;
  options.mode(SanitizerMode::kFail).provenance(false).trace_path("t.json");
  const PythonRunPlan p = plan({DEVCHECK_PYTHON, "-u", "train.py", "--epochs", "1"}, options);
  ASSERT_TRUE(p.through_package);
  EXPECT_THAT(p.argv, ElementsAre(DEVCHECK_PYTHON, "-u", "-m", "devcheck", "run", "--mode", "fail",
                                  "--no-provenance", "--report-dir", "/tmp/reports",
                                  "--trace-events", "--", "train.py", "--epochs", "1"));
  EXPECT_THAT(p.notice, HasSubstr("has the devcheck package for its torch 9.9.1 (" +
                                  (dir_ / "devcheck").string() +
                                  "): the program is watched in-process through it"));
}

TEST_F(FakePython, TheModuleFormIsHandedToThePackageAsAModule) {
  torch("9.9.1");
  package("9.9.1");
  const PythonRunPlan p = plan({DEVCHECK_PYTHON, "-m", "pkg.train", "a"});
  ASSERT_TRUE(p.through_package);
  EXPECT_THAT(p.argv, ElementsAre(DEVCHECK_PYTHON, "-m", "devcheck", "run", "--mode", "report",
                                  "--report-dir", "/tmp/reports", "-m", "pkg.train", "a"));
}

TEST_F(FakePython, APackageBuiltForAnotherTorchIsRefusedWithTheRebuildCommand) {
  torch("9.9.1");
  package("9.8.0");
  const std::string message = refusal({DEVCHECK_PYTHON, "train.py"});
  EXPECT_THAT(message, HasSubstr("its devcheck package (" + (dir_ / "devcheck").string() +
                                 ") was built for torch 9.8.0 (CUDA none)"));
  EXPECT_THAT(message, HasSubstr("-m pip install --no-build-isolation --no-deps "
                                 "--force-reinstall /src/devcheck"));
}

TEST_F(FakePython, AFormThePackageCannotRunIsRefusedWithItsOwnCommand) {
  torch("9.9.1");
  package("9.9.1");
  const std::string message = refusal({DEVCHECK_PYTHON, "-c", "import torch"});
  EXPECT_THAT(message, HasSubstr("runs a program only as `python3 [options] script.py ARGS`"));
  EXPECT_THAT(message, HasSubstr(" -m devcheck run script.py ARGS"));
}

TEST_F(FakePython, APythonWithoutTorchRunsWithThePreloadAsAnyProgram) {
  // -S: no site-packages, so no torch at all (the interpreter's options are probed too).
  EXPECT_FALSE(plan({DEVCHECK_PYTHON, "-S", "prep.py"}).through_package);
}

TEST_F(FakePython, DevchecksOwnTorchWithoutThePackageRunsWithThePreload) {
  // Debian's python3-torch: the LibTorch this devcheck was built for.
  EXPECT_FALSE(plan({DEVCHECK_PYTHON, "train.py"}).through_package);
}

TEST_F(FakePython, OtherProgramsAreNotProbed) {
  torch("9.9.1");
  EXPECT_FALSE(plan({"bash", "-c", "python3 train.py"}).through_package);
}

}  // namespace
}  // namespace devcheck::sanitizer
