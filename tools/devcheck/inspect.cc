// devcheck inspect FILE [--json]: format facts, tensors, devices and findings
// of a torch.save checkpoint or TorchScript archive, read without running it.
#include <memory>
#include <ostream>

#include "command.h"
#include "devcheck/format/checkpoint.h"

namespace devcheck::cli {
namespace {

Runner setup_inspect(CLI::App& sub, Streams& io) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("FILE", *file, "Checkpoint (.pt, .pth, .ckpt) or TorchScript archive")->required();
  sub.add_flag("--json", *json, "Print the report as JSON");
  sub.footer("Exit status: 0 readable, 1 unsafe or inconsistent content found, 2 cannot read.");
  return [file, json, &io]() {
    const format::Checkpoint checkpoint = format::Checkpoint::open(*file);
    io.out << (*json ? checkpoint.to_json() + "\n" : checkpoint.to_text());
    return checkpoint.has_errors() ? kExitFindings : kExitOk;
  };
}

const CommandRegistrar kInspect("inspect",
                                "Show a checkpoint's tensors, devices and findings (never runs it)",
                                20, setup_inspect);

}  // namespace
}  // namespace devcheck::cli
