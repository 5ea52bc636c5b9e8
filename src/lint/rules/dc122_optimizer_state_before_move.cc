// DC122 optimizer-state-before-move: `optimizer.load_state_dict(...)` before
// the model is moved to its device in the same function. Loading casts the
// optimizer's state (Adam's exp_avg, a momentum buffer) to where the
// parameters are at that moment, the CPU; moving the model afterwards moves
// the parameters, not the state, and the first step() mixes the two.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether `name` holds an optimizer: made by torch.optim.<X>(...) in the
// function or its class, or named as one (`optimizer`, `optim`, `optm`,
// `opt`).
bool is_optimizer(const Source& source, TSNode object, int scope) {
  const TSNode value = value_of_object(source, object, scope);
  if (is(value, "call")) {
    const std::string q = source.qualify(field(value, fields().function));
    if (q.rfind("torch.optim.", 0) == 0) return q.find("lr_scheduler") == std::string::npos;
  }
  std::string_view name = source.text(object);
  if (name.rfind("self.", 0) == 0) name.remove_prefix(5);
  return name == "opt" || name == "optm" || name == "optim" ||
         name.find("optimizer") != std::string_view::npos || name.rfind("optim_", 0) == 0 ||
         name.rfind("opt_", 0) == 0;
}

void check(const RuleContext& c) {
  for (const Call& load : c.source.calls()) {
    if (load.method != "load_state_dict" || ts_node_is_null(load.object) ||
        !is_optimizer(c.source, load.object, load.scope)) {
      continue;
    }
    const uint32_t at = ts_node_start_byte(load.node);
    for (const WholeMove& move : whole_moves(c.source, load.scope)) {
      if (ts_node_start_byte(move.call) < at || move.name == c.source.text(load.object)) continue;
      const std::string optimizer(c.source.text(load.object));
      const std::string model(move.name);
      std::string message = optimizer;
      message += ".load_state_dict(...) runs before ";
      message += model;
      message += " is moved to its device (";
      message += line_of(move.call);
      message +=
          "): the loaded state is put where the parameters are now (the CPU) and stays there "
          "when they move; move ";
      message += model;
      message += " first, then load ";
      message += optimizer;
      message += "'s state";
      c.sink.report(load.node, "DC122", message);
      break;
    }
  }
}

}  // namespace

extern const Rule kRuleDC122;
const Rule kRuleDC122 = {
    {"DC122", "optimizer-state-before-move",
     "optimizer.load_state_dict(...) before the model is moved to its device.", false},
    "import torch\n"
    "def resume(model, path, device):\n"
    "    optimizer = torch.optim.Adam(model.parameters())\n"
    "    optimizer.load_state_dict(torch.load(path, map_location='cpu')['optimizer'])\n"
    "    model.to(device)\n",
    "import torch\n"
    "def resume(model, path, device):\n"
    "    model.to(device)\n"
    "    optimizer = torch.optim.Adam(model.parameters())\n"
    "    optimizer.load_state_dict(torch.load(path, map_location='cpu')['optimizer'])\n",
    check};

}  // namespace devcheck::lint::detail
