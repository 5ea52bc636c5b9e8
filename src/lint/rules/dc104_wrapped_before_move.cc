// DC104 wrapped-before-move: DistributedDataParallel(model) built before the
// model is on its device: moved only after the wrap, or (with device_ids)
// never moved at all. DDP takes the parameters' devices when it is built.
#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

bool is_ddp(std::string_view q) {
  return q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel";
}

// Moved only after the wrap, in the same scope: `ddp = DDP(model)`, then
// `model.to(device)` or `ddp.to(device)`.
bool moved_after(const RuleContext& c, const Call& call) {
  const std::vector<TSNode> args = c.source.positional(call.node);
  if (args.empty() || !is(args[0], "identifier")) return false;
  const std::string_view model = c.source.text(args[0]);
  const uint32_t at = ts_node_start_byte(call.node);
  std::string_view wrapper;
  const TSNode parent = ts_node_parent(call.node);
  if (is(parent, "assignment") && is(field(parent, "left"), "identifier")) {
    wrapper = c.source.text(field(parent, "left"));
  }
  bool before = false;
  TSNode after{};
  for (const Call& move : c.source.calls()) {
    if ((move.method != "to" && move.method != "cuda") || move.scope != call.scope ||
        !is(move.object, "identifier")) {
      continue;
    }
    const std::string_view name = c.source.text(move.object);
    const uint32_t where = ts_node_start_byte(move.node);
    if (name == model && where < at) before = true;
    if ((name == model || (!wrapper.empty() && name == wrapper)) && where > at &&
        ts_node_is_null(after)) {
      after = move.node;
    }
  }
  if (before || ts_node_is_null(after)) return false;
  c.sink.report(call.node, "DC104",
                "DistributedDataParallel(" + std::string(model) +
                    ") is built before the model is on its device (it is moved only after, " +
                    line_of(after) + "): move it first: DistributedDataParallel(" +
                    std::string(model) + ".to(device), device_ids=[...])");
  return true;
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (!is_ddp(call.qualified) || moved_after(c, call)) continue;
    // device_ids=[...] for a model made in this file and never moved: DDP
    // refuses CPU parameters with device_ids.
    if (ts_node_is_null(c.source.keyword(call.node, "device_ids"))) continue;
    for (const Wrap& wrap : c.flow.wraps()) {
      if (!ts_node_eq(wrap.call, call.node) || wrap.value.kind != Kind::kModule ||
          wrap.value.place != Place::kHost || wrap.value.origin != Origin::kUnmovedModule) {
        continue;
      }
      const std::string model(c.source.text(wrap.model));
      std::string message = "DistributedDataParallel(" + model;
      message += ", device_ids=...) of a model made on the CPU (";
      message += line_of(wrap.value.made);
      message += ") and never moved to its GPU: DDP refuses it; move it first: ";
      message += model;
      message += ".to(device)";
      c.sink.report(call.node, "DC104", std::move(message));
    }
  }
}

}  // namespace

extern const Rule kRuleDC104;
const Rule kRuleDC104 = {
    {"DC104", "wrapped-before-move",
     "DistributedDataParallel(model) built before the model is moved to its device.", false},
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "def main(model, device):\n"
    "    ddp = DDP(model)\n"
    "    ddp.to(device)\n",
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "def main(model, device, rank):\n"
    "    model.to(device)\n"
    "    ddp = DDP(model, device_ids=[rank])\n",
    check};

}  // namespace devcheck::lint::detail
