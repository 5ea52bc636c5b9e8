// DC108 non-blocking-unpinned: `x.to(device, non_blocking=True)` (or
// `.cuda(non_blocking=True)`) of a tensor the device flow knows is in
// pageable host memory: a batch of a DataLoader without pin_memory=True, a
// tensor just made by a factory or from NumPy. The copy is synchronous anyway.
#include <set>

#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  for (const Move& move : c.flow.moves()) {
    const Value& v = move.value;
    if (!move.non_blocking || move.target == Place::kHost || v.place != Place::kHost || v.pinned ||
        (v.kind != Kind::kTensor && v.origin != Origin::kBatch)) {
      continue;
    }
    // A loader from elsewhere may pin: say so only where nothing in the
    // file pins memory.
    if (v.pin_unknown && c.source.mentions("pin_memory")) continue;
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
