// DC105 load-without-map-location: torch.load(f) without map_location.
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (call.qualified != "torch.load" || c.source.has_splat(call.node)) continue;
    if (!ts_node_is_null(c.source.keyword(call.node, "map_location")) ||
        c.source.positional(call.node).size() >= 2) {
      continue;
    }
    c.sink.report(call.node, "DC105",
                  "torch.load without map_location: tensors saved on a GPU fail to load where "
                  "that device is missing; pass map_location=\"cpu\" (or the target device) and "
                  "weights_only= explicitly (its default changed in torch 2.6)");
  }
}

}  // namespace

extern const Rule kRuleDC105;
const Rule kRuleDC105 = {
    {"DC105", "load-without-map-location", "torch.load without map_location.", false},
    "import torch\n"
    "state = torch.load(\"model.pt\")\n",
    "import torch\n"
    "state = torch.load(\"model.pt\", map_location=\"cpu\", weights_only=True)\n",
    check};

}  // namespace devcheck::lint::detail
