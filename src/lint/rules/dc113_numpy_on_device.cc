// DC113 numpy-on-device: `.numpy()` (or a NumPy function) of a tensor the
// device flow knows is on a device: a TypeError at run time.
#include <set>

#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  for (const NumpyRead& read : c.flow.numpy_reads()) {
    if (read.value.place != Place::kDevice ||
        (read.value.kind != Kind::kTensor && read.value.kind != Kind::kUnknown) ||
        !done.insert(ts_node_start_byte(read.call)).second) {
      continue;
    }
    c.sink.report(read.call, "DC113",
                  ".numpy() on a tensor that is on a device raises a TypeError; copy it to the "
                  "host first: .detach().cpu().numpy()");
  }
}

}  // namespace

extern const Rule kRuleDC113;
const Rule kRuleDC113 = {
    {"DC113", "numpy-on-device", ".numpy() on a tensor that is on a device.", false},
    "def f(x):\n"
    "    return x.cuda().detach().numpy()\n",
    "def f(x):\n"
    "    return x.cuda().detach().cpu().numpy()\n",
    check};

}  // namespace devcheck::lint::detail
