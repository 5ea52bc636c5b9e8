// devcheck run: run any command under the device sanitizer.
//
//   devcheck run [--mode report|warn|fail] [--json FILE] [--trace FILE]
//                [--no-provenance] -- COMMAND ARGS...
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
#include "devcheck/sanitizer.h"
#include "torch_commands.h"

namespace devcheck::cli {
namespace {

struct RunArgs {
  std::string mode = "report";
  std::string json;
  std::string trace;
  bool no_provenance = false;
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
  auto command = std::make_shared<std::vector<std::string>>();
  sub.add_option("command", *command, "COMMAND ARGS...: the program to run and its arguments")
      ->required();
  // From COMMAND on, every argument is COMMAND's ("--" before it is optional).
  sub.positionals_at_end();
  sub.footer("Example: devcheck run --mode fail -- python3 train.py --epochs 1");
  return [args, command, &io]() {
    SanitizedRunOptions options;
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
    return run.status_for(mode);
  };
}

const CommandRegistrar kRun(kRunCommand.name, kRunCommand.description, kRunCommand.order,
                            setup_run);

}  // namespace
}  // namespace devcheck::cli
