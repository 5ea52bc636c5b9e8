#include "sanitizer/python_run.h"

#include <dlfcn.h>
#include <sys/wait.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "devcheck/error.h"
#include "process/child.h"
#include "sanitizer/preload/torch_version.h"

#ifndef DEVCHECK_TORCH_VERSION
#define DEVCHECK_TORCH_VERSION ""
#endif
// share/devcheck/python relative to the folder of libdevcheck_sanitizer, once
// installed and in the build tree (src/CMakeLists.txt).
#ifndef DEVCHECK_PYTHON_DIR_FROM_LIBDIR
#define DEVCHECK_PYTHON_DIR_FROM_LIBDIR "../share/devcheck/python"
#endif
#ifndef DEVCHECK_PYTHON_DIR_FROM_BUILD
#define DEVCHECK_PYTHON_DIR_FROM_BUILD "../share/devcheck/python"
#endif

namespace devcheck::sanitizer {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Interpreter flags that take no value and that `python -m devcheck run`
// keeps meaning the same (unbuffered, no .pyc, -O, isolation, warnings...).
bool is_plain_flag_cluster(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  for (std::size_t i = 1; i < arg.size(); ++i) {
    if (std::strchr("bBdEIOPqsSuv", arg[i]) == nullptr) return false;
  }
  return true;
}

// Finds where each module would be imported from; imports neither torch nor
// devcheck. One line each: sys.executable, torch's folder, devcheck's folder.
constexpr const char* kProbe =
    "import importlib.util as u, sys\n"
    "def where(name):\n"
    "    try:\n"
    "        spec = u.find_spec(name)\n"
    "    except BaseException:\n"
    "        return ''\n"
    "    return next(iter(spec.submodule_search_locations or ()), '') if spec else ''\n"
    "print(sys.executable); print(where('torch')); print(where('devcheck'))\n";

std::string devcheck_torch() { return DEVCHECK_TORCH_VERSION; }

std::string or_none(const std::string& s) { return s.empty() ? "none" : s; }

}  // namespace

bool is_python_interpreter(const std::string& program) {
  const std::string name = base_name(program);
  if (name.rfind("python", 0) != 0) return false;
  for (std::size_t i = 6; i < name.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(name[i])) == 0 && name[i] != '.') return false;
  }
  return true;
}

PythonCommand parse_python_command(const std::vector<std::string>& command) {
  PythonCommand c;
  std::size_t i = 0;
  if (!command.empty()) c.interpreter.push_back(command[i++]);
  while (i < command.size()) {
    const std::string& arg = command[i];
    if (arg == "-m") {
      if (i + 1 >= command.size()) return c;
      c.module = command[i + 1];
      c.args.assign(command.begin() + static_cast<std::ptrdiff_t>(i) + 2, command.end());
      c.runnable = true;
      return c;
    }
    if (arg == "-X" || arg == "-W") {  // a value follows
      if (i + 1 >= command.size()) return c;
      c.interpreter.push_back(arg);
      c.interpreter.push_back(command[i + 1]);
      i += 2;
      continue;
    }
    if (arg.rfind("-X", 0) == 0 || arg.rfind("-W", 0) == 0 || is_plain_flag_cluster(arg)) {
      c.interpreter.push_back(arg);
      ++i;
      continue;
    }
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg[0] == '-') return c;  // -c, -i, -, --help, ...: not a script to hand on
    break;
  }
  if (i >= command.size() || command[i] == "-") return c;
  c.script = command[i];
  c.args.assign(command.begin() + static_cast<std::ptrdiff_t>(i) + 1, command.end());
  c.runnable = true;
  return c;
}

bool PythonTorch::package_fits() const {
  return !package_dir.empty() && !package_torch.empty() && package_torch == torch_version &&
         package_cuda == torch_cuda;
}

PythonTorch probe_python(const std::vector<std::string>& interpreter,
                         const std::vector<std::string>& env) {
  PythonTorch t;
  std::vector<std::string> argv = interpreter;
  argv.emplace_back("-c");
  argv.emplace_back(kProbe);
  const detail::Captured run = detail::run_capturing_stdout(argv, env);
  if (!run.started || !WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) return t;
  std::istringstream lines(run.out);
  if (!std::getline(lines, t.executable) || !std::getline(lines, t.torch_dir) ||
      !std::getline(lines, t.package_dir)) {
    return t;
  }
  t.probed = true;
  if (!t.torch_dir.empty()) {
    t.torch_version = torch_package_version(t.torch_dir);
    t.torch_cuda = python_string_assignment(t.torch_dir + "/version.py", "cuda");
  }
  if (!t.package_dir.empty()) {
    const std::string info = t.package_dir + "/_build_info.py";
    t.package_torch = python_string_assignment(info, "TORCH_VERSION");
    t.package_cuda = python_string_assignment(info, "CUDA_VERSION");
    t.package_source = python_string_assignment(info, "SOURCE_DIR");
  }
  return t;
}

PythonRunPlan plan_python_run(const std::vector<std::string>& command,
                              const std::vector<std::string>& env, const SanitizerOptions& options,
                              const std::string& report_dir, int fake_cuda, bool fake_cuda_force) {
  PythonRunPlan plan;
  if (command.empty() || !is_python_interpreter(command[0])) return plan;
  const PythonCommand py = parse_python_command(command);
  const PythonTorch t = probe_python(py.interpreter, env);
  // Not a Python after all, or one without torch (it may never import it):
  // the preload library, as for any program; it is also the backstop.
  if (!t.probed || t.torch_dir.empty()) return plan;
  const std::string built = devcheck_torch();
  const bool same_libtorch =
      !t.torch_version.empty() && major_minor(t.torch_version) == major_minor(built);
  const std::string who = fmt::format("{} ({})", command[0], t.executable);
  if (t.package_fits() && py.runnable) {
    plan.through_package = true;
    plan.argv = py.interpreter;
    for (const char* a : {"-m", "devcheck", "run", "--mode"}) plan.argv.emplace_back(a);
    plan.argv.emplace_back(to_string(options.mode()));
    if (!options.provenance()) plan.argv.emplace_back("--no-provenance");
    plan.argv.emplace_back("--report-dir");
    plan.argv.push_back(report_dir);
    if (!options.trace_path().empty()) plan.argv.emplace_back("--trace-events");
    if (fake_cuda > 0) {
      plan.argv.emplace_back("--fake-cuda=" + std::to_string(fake_cuda));
      if (fake_cuda_force) plan.argv.emplace_back("--fake-cuda-force");
    }
    if (!py.module.empty()) {
      plan.argv.emplace_back("-m");
      plan.argv.push_back(py.module);
    } else {
      plan.argv.emplace_back("--");
      plan.argv.push_back(py.script);
    }
    plan.argv.insert(plan.argv.end(), py.args.begin(), py.args.end());
    plan.notice = fmt::format(
        "[devcheck] run: {} has the devcheck package for its torch {} ({}): the program is "
        "watched in-process through it (python -m devcheck run), not by the preload library\n",
        who, t.torch_version, t.package_dir);
    return plan;
  }
  if (same_libtorch) return plan;
  const std::string head = fmt::format(
      "[devcheck] run: {} imports torch {} (CUDA {}) from {}, but this devcheck was built for "
      "LibTorch {}, whose sanitizer cannot watch it",
      who, t.torch_version.empty() ? "of unknown version" : t.torch_version, or_none(t.torch_cuda),
      t.torch_dir, built);
  const std::string tail =
      "; the program was not started (exit status 2) rather than run unwatched";
  const std::string source = t.package_source.empty() ? "<devcheck checkout>" : t.package_source;
  if (t.package_fits()) {
    throw InvalidArgumentError(fmt::format(
        "{}; its devcheck package ({}) runs a program only as `python3 [options] script.py ARGS` "
        "or `python3 [options] -m module ARGS`, not `{}`{}\nfix: {} -m devcheck run script.py "
        "ARGS",
        head, t.package_dir, fmt::join(command, " "), tail, t.executable));
  }
  if (!t.package_dir.empty() && !t.package_torch.empty()) {
    throw InvalidArgumentError(fmt::format(
        "{}; its devcheck package ({}) was built for torch {} (CUDA {}){}\nfix: rebuild the "
        "package for this torch: {} -m pip install --no-build-isolation --no-deps "
        "--force-reinstall {}",
        head, t.package_dir, t.package_torch, or_none(t.package_cuda), tail, t.executable, source));
  }
  throw InvalidArgumentError(fmt::format(
      "{}; that Python has no devcheck package{}\nfix: install the package into that Python "
      "(it builds devcheck for torch {}): {} -m pip install --no-build-isolation --no-deps {}; "
      "devcheck run then watches the program through it",
      head, tail, t.torch_version, t.executable, source));
}

std::string python_helpers_dir() {
  namespace fs = std::filesystem;
  auto has_helpers = [](const fs::path& dir) {
    std::error_code ec;
    return fs::exists(dir / "devcheck_fake_cuda" / "__init__.py", ec) &&
           fs::exists(dir / "site" / "sitecustomize.py", ec);
  };
  if (const char* env = std::getenv("DEVCHECK_PYTHON_DIR")) {
    if (*env != '\0') return has_helpers(env) ? std::string(env) : std::string();
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&python_helpers_dir), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  const fs::path libdir = fs::absolute(fs::path(info.dli_fname)).parent_path();
  for (const char* relative : {DEVCHECK_PYTHON_DIR_FROM_LIBDIR, DEVCHECK_PYTHON_DIR_FROM_BUILD}) {
    const fs::path dir = (libdir / relative).lexically_normal();
    if (has_helpers(dir)) return dir.string();
  }
  return "";
}

}  // namespace devcheck::sanitizer
