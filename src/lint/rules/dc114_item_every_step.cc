// DC114 item-every-step: `.item()` directly in the body of a training loop
// (one that calls backward()) in a file that puts something on a device.
#include <algorithm>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether the file puts anything on a device: `.to(device)`-style moves and
// `device=` (Scope::uses_device), `.cuda()`, `torch.device(...)`, `.to(X)`
// with X naming a rank, a GPU, CUDA or a device (`.to(local_rank)`).
// Without one, `.item()` reads a CPU tensor and waits for nothing.
bool uses_a_device(const Source& source) {
  return std::any_of(source.scopes().begin(), source.scopes().end(),
                     [](const Scope& s) { return s.uses_device; }) ||
         std::any_of(source.calls().begin(), source.calls().end(), [&](const Call& c) {
           if ((c.method == "cuda" && c.qualified.empty()) || c.qualified == "torch.device") {
             return true;
           }
           if (c.method != "to" || !c.qualified.empty()) return false;
           const std::vector<TSNode> args = source.positional(c.node);
           const TSNode target = args.empty() ? source.keyword(c.node, "device") : args[0];
           return !ts_node_is_null(target) &&
                  names_any(source.text(target), {"cuda", "gpu", "rank", "device"});
         });
}

void check(const RuleContext& c) {
  const Source& source = c.source;
  Sink& sink = c.sink;
  if (!uses_a_device(source)) return;
  for (const Call& call : source.calls()) {
    // Under a condition (`if step % 100 == 0`) it is not every step.
    if (call.method != "item" || call.conditional || call.loop == Call::kNoLoop ||
        !source.is_training_loop(call.loop) ||
        ts_node_named_child_count(field(call.node, "arguments")) != 0) {
      continue;
    }
    sink.report(call.node, "DC114",
                ".item() on every step of a training loop waits for the device each time; "
                "accumulate on the device (total += loss.detach()) and read it once per "
                "epoch or under a logging condition");
  }
}

}  // namespace

extern const Rule kRuleDC114;
const Rule kRuleDC114 = {
    {"DC114", "item-every-step", ".item() on every step of a training loop.", false},
    "for x, y in loader:\n"
    "    x, y = x.to(device), y.to(device)\n"
    "    loss = loss_fn(model(x), y)\n"
    "    loss.backward()\n"
    "    total += loss.item()\n",
    "for step, (x, y) in enumerate(loader):\n"
    "    x, y = x.to(device), y.to(device)\n"
    "    loss = loss_fn(model(x), y)\n"
    "    loss.backward()\n"
    "    total += loss.detach()\n"
    "    if step % 100 == 0:\n"
    "        print(loss.item())\n",
    check};

}  // namespace devcheck::lint::detail
