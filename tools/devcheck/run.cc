// devcheck run: run any command under the device sanitizer.
//
//   devcheck run [--mode report|warn|fail] [--json FILE] [--trace FILE]
//                [--no-provenance] [--fake-cuda[=N] [--fake-cuda-force]]
//                -- COMMAND ARGS...
//
// --fake-cuda[=N] (or DEVCHECK_FAKE_CUDA=N): the command's processes get N
// fake CUDA devices (default 2; devcheck/fake_cuda.h), so a program written
// for CUDA runs its CUDA paths on a machine without a GPU. With a real CUDA
// device visible it refuses (exit status 2) unless --fake-cuda-force. Without
// it, on a machine without a GPU, a program that asked for CUDA gets one line
// at the end saying its CUDA paths did not run.
//
// Exit status: COMMAND's own status (128+N when signal N ended it); in fail
// mode, 1 when COMMAND exited 0 but a device mismatch was found; 2 for bad
// usage, a command that cannot be run, or a Python program that cannot be
// watched (its torch is not devcheck's and it has no devcheck package; it
// is not started). A Python with the devcheck package for its own torch runs
// the program through it (run_sanitized in src/sanitizer/run.cc).
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "command.h"
#include "devcheck/error.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/sanitizer.h"
#include "torch_commands.h"

namespace devcheck::cli {
namespace {

struct RunArgs {
  std::string mode = "report";
  std::string json;
  std::string trace;
  bool no_provenance = false;
  std::string fake_cuda;  // --fake-cuda's N; empty: not given (DEVCHECK_FAKE_CUDA decides)
  bool fake_cuda_force = false;
};

Runner setup_run(CLI::App& sub, Streams& io) {
  auto args = std::make_shared<RunArgs>();
  sub.add_option("--mode", args->mode,
                 "report: summary at exit; warn: print each finding when it happens; fail: as "
                 "warn, and exit 1 on a device mismatch")
      ->check(CLI::IsMember({"report", "warn", "fail"}));
  sub.add_option("--json", args->json, "Write every process's report as one JSON file");
  sub.add_option(
      "--trace", args->trace,
      "Write a Chrome Trace Event file of copies and syncs (Perfetto, chrome://tracing)");
  sub.add_flag("--no-provenance", args->no_provenance,
               "Do not remember where tensors were made (cheaper)");
  // A flag with an optional "=N": the word after it is always the program's.
  // (checked in the runner: CLI11 2.x would check the variable's default too)
  sub.add_flag(
      "--fake-cuda{2}", args->fake_cuda,
      "--fake-cuda[=N]: give the program N fake CUDA devices (default 2): cuda:N tensors in "
      "host memory that fail as on a GPU (also DEVCHECK_FAKE_CUDA=N)");
  sub.add_flag("--fake-cuda-force", args->fake_cuda_force,
               "Use fake CUDA even where a real GPU is visible (it hides the GPU)");
  auto command = std::make_shared<std::vector<std::string>>();
  sub.add_option("command", *command, "COMMAND ARGS...: the program to run and its arguments")
      ->required();
  // From COMMAND on, every argument is COMMAND's ("--" before it is optional).
  sub.positionals_at_end();
  sub.footer(
      "Examples: devcheck run --mode fail -- python3 train.py --epochs 1\n"
      "          devcheck run --fake-cuda --mode fail -- python3 train.py   (no GPU needed)");
  return [args, command, &io]() {
    SanitizedRunOptions options;
    FakeCudaRequest flags;
    if (!args->fake_cuda.empty()) {
      const std::string& n = args->fake_cuda;
      if (n.size() != 1 || n[0] < '1' || n[0] > '8') {
        throw InvalidArgumentError(fmt::format(
            "[devcheck] run: --fake-cuda={}: expected a number of fake CUDA devices from 1 to 8",
            n));
      }
      flags.count = n[0] - '0';
    }
    flags.force = args->fake_cuda_force;
    const FakeCudaRequest request = fake_cuda_request_from_environment(flags);
    refuse_fake_cuda_over_real_gpus(request, "run");
    options.fake_cuda = request.count;
    options.fake_cuda_force = request.force;
    const SanitizerMode mode = parse_sanitizer_mode(args->mode);
    options.sanitizer.mode(mode)
        .provenance(!args->no_provenance)
        .json_path(args->json)
        .trace_path(args->trace);
    options.on_notice = [&io](const std::string& line) { io.err << line << std::flush; };
    const SanitizedRun run = run_sanitized(*command, options);
    for (const auto& p : run.processes) {
      if (run.processes.size() > 1) io.err << fmt::format("[devcheck] process {}:\n", p.pid);
      io.err << p.text;
    }
    // Exit status 2 without a report: the preload refused the program's
    // LibTorch and said why (src/sanitizer/preload/preload.cc).
    if (run.processes.empty() && run.through_python_package) {
      io.err << fmt::format(
          "[devcheck] run: the devcheck package of {} wrote no report: it stopped before the "
          "program ended (see above)\n",
          command->front());
    } else if (run.processes.empty() && run.exit_status != 2) {
      io.err << fmt::format(
          "[devcheck] run: {} never loaded LibTorch, so nothing was watched (expected a LibTorch "
          "program or a python3 that imports torch)\n",
          command->front());
    }
    if (run.term_signal != 0) {
      io.err << fmt::format("[devcheck] run: {} was ended by signal {}\n", command->front(),
                            run.term_signal);
    }
    if (request.count == 0 && run.asked_for_cuda && real_cuda_devices().empty()) {
      io.err << "[devcheck] run: the program asked for CUDA and this machine has none, so its "
                "CUDA paths did not run; devcheck run --fake-cuda runs them on fake CUDA devices\n";
    }
    return run.status_for(mode);
  };
}

const CommandRegistrar kRun(kRunCommand.name, kRunCommand.description, kRunCommand.order,
                            setup_run);

}  // namespace
}  // namespace devcheck::cli
