// DC108 non-blocking-unpinned: `x.to(device, non_blocking=True)` (or
// `.cuda(non_blocking=True)`) of a tensor the device flow knows is in
// pageable host memory: a batch of a DataLoader without pin_memory=True, a
// tensor just made by a factory or from NumPy. The copy is synchronous anyway.
#include <set>
#include <string>
#include <vector>

#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether the batches come from a loader that is a parameter of the
// function that loops over it (`def evaluate(model, loader, device): for
// batch in loader:`, or `tqdm(loader)`, `enumerate(loader)`): its callers
// choose whether it pins, maybe in another file.
bool loader_is_parameter(const Source& source, TSNode iterable) {
  while (is(iterable, "call")) {
    const std::vector<TSNode> args = source.positional(iterable);
    if (args.empty()) return false;
    iterable = args[0];
  }
  if (!is(iterable, "identifier")) return false;
  const int function = source.function_of(source.scope_of(iterable));
  if (function < 0) return false;
  const TSNode parameters = field(source.scopes()[function].node, "parameters");
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      p = is(field(p, "name"), "identifier") ? field(p, "name") : ts_node_named_child(p, 0);
    }
    if (is(p, "identifier") && source.text(p) == source.text(iterable)) return true;
  }
  return false;
}

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  for (const Move& move : c.flow.moves()) {
    const Value& v = move.value;
    if (!move.non_blocking || move.target == Place::kHost || v.place != Place::kHost || v.pinned ||
        (v.kind != Kind::kTensor && v.origin != Origin::kBatch)) {
      continue;
    }
    // A loader from elsewhere may pin: say so only where nothing in the
    // file pins memory, and never of one handed in as a parameter.
    if (v.pin_unknown && (c.source.mentions("pin_memory") ||
                          (v.origin == Origin::kBatch && loader_is_parameter(c.source, v.made)))) {
      continue;
    }
    if (!done.insert(ts_node_start_byte(move.call)).second) continue;
    const char* what = v.origin == Origin::kBatch
                           ? "a batch of a DataLoader that does not pin memory"
                           : "a tensor in pageable host memory";
    c.sink.report(move.call, "DC108",
                  std::string("non_blocking=True of ") + what +
                      " is a synchronous copy: the host waits anyway; use "
                      "DataLoader(pin_memory=True) or tensor.pin_memory()");
  }
}

}  // namespace

extern const Rule kRuleDC108;
const Rule kRuleDC108 = {
    {"DC108", "non-blocking-unpinned", "non_blocking=True from memory that is not pinned.", false},
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader(data, batch_size=64)\n"
    "for x, y in loader:\n"
    "    x = x.to(device, non_blocking=True)\n",
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader(data, batch_size=64, pin_memory=True)\n"
    "for x, y in loader:\n"
    "    x = x.to(device, non_blocking=True)\n",
    check};

}  // namespace devcheck::lint::detail
