// devcheck launch -n N [--master-port P] [--grace SECONDS] -- COMMAND ARGS...
// The launcher is devcheck::launch (include/devcheck/launch.h, src/launch).
#include <memory>

#include "command.h"
#include "devcheck/launch.h"

namespace devcheck::cli {
namespace {

Runner setup_launch(CLI::App& sub, Streams& io) {
  auto options = std::make_shared<LaunchOptions>();
  sub.add_option("-n,--nproc,--nproc-per-node", options->nproc,
                 "How many processes (ranks) to start")
      ->required()
      ->check(CLI::Range(1, LaunchOptions::kMaxProcesses));
  sub.add_option("--master-port", options->master_port,
                 "MASTER_PORT for the ranks (default: a free port)")
      ->check(CLI::Range(1, 65535));
  sub.add_option("--grace", options->grace_seconds,
                 "Seconds between SIGTERM and SIGKILL when ranks are stopped (default 30)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("command", options->command, "COMMAND ARGS...: what every rank runs")->required();
  // From COMMAND on, every argument is COMMAND's ("--" before it is optional).
  sub.positionals_at_end();
  sub.footer(
      "Sets torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...);\n"
      "prefixes each output line with [rankK]; when a rank fails, stops the others (SIGTERM, then\n"
      "SIGKILL after --grace) and exits with its status.\n"
      "Exit status: 0 all ranks succeeded; the first failed rank's status (128+N for signal N);\n"
      "128+N when the launcher got signal N (INT, TERM, HUP, QUIT: passed on to the ranks);\n"
      "2 bad usage or a command not found.\n"
      "Example: devcheck launch -n 2 -- python3 train_ddp.py --epochs 1");
  return [options, &io]() { return launch(*options, io.out, io.err); };
}

const CommandRegistrar kLaunch("launch",
                               "Start N local ranks like torchrun --standalone: torchrun's "
                               "environment, [rankK] lines, no orphans",
                               70, setup_launch);

}  // namespace
}  // namespace devcheck::cli
