// devcheck remap IN -o OUT [--to DEVICE | --map FROM=TO ...] [--strip-prefix P]
// [--rewrite-code] [--force]: torch.load's map_location, applied offline.
#include <fmt/format.h>

#include <memory>
#include <ostream>
#include <vector>

#include "command.h"
#include "devcheck/format/checkpoint.h"
#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"

namespace devcheck::cli {
namespace {

struct RemapArgs {
  std::string input, output, to, strip_prefix;
  std::vector<std::string> maps;
  bool rewrite_code = false, force = false, json = false;
};

// --to and --map targets go through devcheck's one device parser: "CUDA:0",
// "fake:1" and "auto" mean what they mean for every other devcheck flag. A
// named device need not exist here: a remap may prepare a file for another
// machine. "auto" and "gpu" are this machine's choice (format::auto_device).
format::Device parse_device(const std::string& text, const std::string& flag) {
  format::DeviceRequest request;
  try {
    request = format::parse_device_request(text);
  } catch (const format::InvalidArgumentError& e) {
    const std::string message = e.message();
    throw format::InvalidArgumentError(
        fmt::format("[devcheck] remap {}: {}", flag, message.substr(message.find(' ') + 1)));
  }
  if (request.kind == format::DeviceRequest::Kind::kDevice) return request.device;
  return format::auto_device();
}

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
    format::DeviceMap map_location = format::DeviceMap::keep();
    if (!a->to.empty()) map_location = format::DeviceMap::to(parse_device(a->to, "--to"));
    for (const auto& rule : a->maps) {
      const auto eq = rule.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == rule.size()) {
        throw format::InvalidArgumentError(fmt::format(
            "[devcheck] remap --map: '{}' is not FROM=TO (e.g. --map cuda:1=cuda:0)", rule));
      }
      map_location.map(rule.substr(0, eq), parse_device(rule.substr(eq + 1), "--map"));
    }
    options.map_location(map_location)
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
