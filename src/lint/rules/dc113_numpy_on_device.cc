// DC113 numpy-on-device: `.numpy()` (or a NumPy function) of a tensor the
// device flow knows is on a device: a TypeError at run time.
#include <set>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether `node` lies in a branch of an `if` or a conditional expression
// whose test asks where a value is (`x.numpy() if x.device.type == "cpu"
// else x.cpu().numpy()`, `if not t.is_cuda:`): the program chose by it.
bool under_place_test(const Source& source, TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) break;
    TSNode test{};
    if (is(n, "if_statement") || is(n, "elif_clause")) {
      test = field(n, "condition");
    } else if (is(n, "conditional_expression")) {
      test = ts_node_named_child(n, 1);  // body `if` test `else` other
    }
    if (ts_node_is_null(test) || (ts_node_start_byte(node) >= ts_node_start_byte(test) &&
                                  ts_node_end_byte(node) <= ts_node_end_byte(test))) {
      continue;
    }
    if (names_any(source.text(test), {"cuda", "cpu", "device"})) return true;
  }
  return false;
}

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  const bool modules_on_device = c.flow.moves_a_module();
  for (const NumpyRead& read : c.flow.numpy_reads()) {
    const bool on_device = read.value.place == Place::kDevice ||
                           (read.value.place == Place::kModuleDevice && modules_on_device);
    if (!on_device || (read.value.kind != Kind::kTensor && read.value.kind != Kind::kUnknown) ||
        under_place_test(c.source, read.call) ||
        !done.insert(ts_node_start_byte(read.call)).second) {
      continue;
    }
    if (read.value.place == Place::kModuleDevice) {
      c.sink.report(
          read.call, "DC113",
          "NumPy of a tensor on the module's device raises a TypeError once the module "
          "is on a device (this file moves its modules to one, or hands them to a framework "
          "that does); copy it to the host "
          "first (.detach().cpu().numpy()) or compute with torch");
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
