// DC105 load-without-map-location: torch.load(f) without map_location.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// The file argument of torch.save (its second) or torch.load (its first).
TSNode file_argument(const Source& source, TSNode call, std::size_t position) {
  const TSNode f = source.keyword(call, "f");
  if (!ts_node_is_null(f)) return f;
  const std::vector<TSNode> args = source.positional(call);
  return args.size() > position ? args[position] : TSNode{};
}

// A state dict, as saved: `m.state_dict()`, a dict written out or a
// comprehension, or a name that holds one. Only tensors, numbers and strings:
// what weights_only=True reads.
bool is_state(const Source& source, TSNode value, int scope) {
  if (is(value, "identifier")) {
    // The name's last value before the save (in its scope, else an enclosing one).
    const std::string name(source.text(value));
    const uint32_t at = ts_node_start_byte(value);
    value = TSNode{};
    for (int s = scope; s >= 0 && ts_node_is_null(value); s = source.scopes()[s].parent) {
      const auto found = source.scopes()[s].assigns.find(name);
      if (found == source.scopes()[s].assigns.end()) continue;
      for (const TSNode rhs : found->second) {
        if (s != scope || ts_node_start_byte(rhs) < at) value = rhs;
      }
    }
  }
  if (is(value, "dictionary") || is(value, "dictionary_comprehension")) return true;
  if (!is(value, "call")) return false;
  const TSNode function = field(value, "function");
  return is(function, "attribute") && source.text(field(function, "attribute")) == "state_dict";
}

// Whether `load` reads back, in the same process, a state dict that the same
// function saved before it to the same file (`torch.save(m.state_dict(), b);
// b.seek(0); torch.load(b)`): the tensors come back to the devices they were
// saved from, which this process has, and weights_only=True reads them (not
// the rare state dict that holds a ScriptObject: a miss). A whole module
// saved so is not such a round trip: torch 2.6's weights_only default
// refuses it.
bool round_trip(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  const int function = source.function_of(load.scope);
  if (ts_node_is_null(file) || function < 0) return false;
  // The last save to that file before the load is what it reads.
  bool state = false;
  for (const Call& save : source.calls()) {
    if (ts_node_start_byte(save.node) >= ts_node_start_byte(load.node)) break;
    if (save.qualified != "torch.save" || source.function_of(save.scope) != function) continue;
    const TSNode saved_to = file_argument(source, save.node, 1);
    if (ts_node_is_null(saved_to) || source.text(saved_to) != source.text(file)) continue;
    const std::vector<TSNode> args = source.positional(save.node);
    TSNode saved = source.keyword(save.node, "obj");
    if (ts_node_is_null(saved) && !args.empty()) saved = args[0];
    state = !ts_node_is_null(saved) && is_state(source, saved, save.scope);
  }
  return state;
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (call.qualified != "torch.load" || c.source.has_splat(call.node)) continue;
    if (!ts_node_is_null(c.source.keyword(call.node, "map_location")) ||
        c.source.positional(call.node).size() >= 2 || round_trip(c.source, call)) {
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
