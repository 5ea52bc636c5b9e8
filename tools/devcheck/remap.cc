// devcheck remap IN -o OUT [--to DEVICE | --map FROM=TO ...] [--strip-prefix P]
// [--rewrite-code] [--force]: torch.load's map_location, applied offline.
#include <memory>
#include <ostream>
#include <vector>

#include "command.h"
#include "devcheck/format/checkpoint.h"

namespace devcheck::cli {
namespace {

struct RemapArgs {
  std::string input, output, to, strip_prefix;
  std::vector<std::string> maps;
  bool rewrite_code = false, force = false, json = false;
};

Runner setup_remap(CLI::App& sub, Streams& io) {
  auto a = std::make_shared<RemapArgs>();
  sub.add_option("IN", a->input, "Checkpoint or TorchScript archive to read (never modified)")
      ->required();
  sub.add_option("-o,--output", a->output, "File to write (zip format)")->required();
  auto* to = sub.add_option("--to", a->to,
                            "Send every storage to DEVICE (cpu, cuda:0, fake:1, auto, ...)");
  auto* map = sub.add_option("--map", a->maps,
                             "Remap one saved location: FROM=TO (repeatable; others unchanged)");
  to->excludes(map);
  sub.add_option("--strip-prefix", a->strip_prefix,
                 "Remove PREFIX from every dict key that has it (e.g. module.)");
  sub.add_flag("--rewrite-code", a->rewrite_code,
               "Also rewrite device literals in TorchScript code/");
  sub.add_flag("--force", a->force, "Replace OUT if it exists");
  sub.add_flag("--json", a->json, "Print what was done as JSON");
  sub.footer(
      "Exit status: 0 written, 1 refused (unsafe or inconsistent input), 2 bad input or "
      "usage. A failed run leaves no output.");
  return [a, &io]() {
    format::RemapOptions options;
    options.map_location(format::DeviceMap::parse(a->to, a->maps))
        .strip_prefix(a->strip_prefix)
        .rewrite_code(a->rewrite_code)
        .force(a->force);
    const RemapReport report = format::remap(a->input, a->output, options);
    io.out << (a->json ? report.to_json() + "\n" : report.to_text());
    return kExitOk;
  };
}

const CommandRegistrar kRemap("remap",
                              "Remap a checkpoint's devices offline (torch.load's map_location)",
                              30, setup_remap);

}  // namespace
}  // namespace devcheck::cli
