// DC110 set-default-tensor-type: torch.set_default_tensor_type is deprecated.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (call.qualified != "torch.set_default_tensor_type") continue;
    const std::vector<TSNode> args = c.source.positional(call.node);
    std::optional<Fix> fix;
    if (args.size() == 1 && ts_node_named_child_count(field(call.node, "arguments")) == 1) {
      const std::optional<std::string> s = string_value(c.source, args[0]);
      const std::string q = s ? *s : c.source.qualify(args[0]);
      const std::string torch = c.source.dotted(field(field(call.node, "function"), "object"));
      std::string replacement;
      if (q == "torch.cuda.FloatTensor") {
        replacement = torch + ".set_default_device(\"cuda\")";
      } else if (q == "torch.FloatTensor" || q == "torch.DoubleTensor") {
        replacement = torch + ".set_default_dtype(";
        replacement += torch;
        replacement += q == "torch.FloatTensor" ? ".float32)" : ".float64)";
      }
      if (!replacement.empty() && !torch.empty()) {
        fix = Fix{"use " + replacement,
                  {{ts_node_start_byte(call.node), ts_node_end_byte(call.node), replacement}}};
      }
    }
    c.sink.report(call.node, "DC110",
                  "torch.set_default_tensor_type is deprecated; use torch.set_default_device(...) "
                  "for the device and torch.set_default_dtype(...) for the dtype",
                  std::move(fix));
  }
}

}  // namespace

extern const Rule kRuleDC110;
const Rule kRuleDC110 = {
    {"DC110", "set-default-tensor-type", "torch.set_default_tensor_type is deprecated.", true},
    "import torch\n"
    "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n",
    "import torch\n"
    "torch.set_default_device(\"cuda\")\n",
    check};

}  // namespace devcheck::lint::detail
