// DC116 layer-in-forward: a torch.nn layer with parameters made inside a
// method forward: new random weights every call, on the CPU, never trained.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check_layer_in_forward(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified.rfind("torch.nn.", 0) != 0 ||
      call.qualified.find(".functional") != std::string::npos) {
    return;
  }
  const std::string layer = call.qualified.substr(call.qualified.rfind('.') + 1);
  if (!layer_has_parameters(layer)) return;
  const int function = source.function_of(call.scope);
  if (function < 0 || source.scopes()[function].name != "forward" ||
      source.scopes()[function].owner_class < 0) {
    return;
  }
  sink.report(call.node, "DC116",
              "nn." + layer +
                  " made inside forward: its weights are new on every call, on the CPU, and never "
                  "trained; create it in __init__ as self.<name> and call it here");
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) check_layer_in_forward(c.source, call, c.sink);
}

}  // namespace

extern const Rule kRuleDC116;
const Rule kRuleDC116 = {
    {"DC116", "layer-in-forward", "A layer with parameters constructed inside forward.", false},
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def forward(self, x):\n"
    "        return nn.Linear(4, 4)(x)\n",
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "    def forward(self, x):\n"
    "        return self.fc(x)\n",
    check};

}  // namespace devcheck::lint::detail
