// DC115 unguarded-cuda: torch.device("cuda") in a file that never asks
// torch.cuda.is_available() or device_count().
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether code is run only where CUDA is, by what is around it: a decorator
// of an enclosing function or class that names CUDA or a GPU
// (`@RunIf(min_cuda_gpus=1)`, `@unittest.skipIf(not TEST_CUDA, ...)`), or a
// call around it whose `marks=` does (`pytest.param(..., marks=...)`), or an
// `if` (`elif`) whose condition does and whose body holds it
// (`if device.type == "cuda":`, `if TEST_CUDA:`). The test that decides may
// live elsewhere (a conftest.py).
bool gated_on_cuda(const Source& source, const Call& call) {
  for (int s = call.scope; s > 0; s = source.scopes()[s].parent) {
    const TSNode definition = ts_node_parent(source.scopes()[s].node);
    if (!is(definition, "decorated_definition")) continue;
    const uint32_t count = ts_node_named_child_count(definition);
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode decorator = ts_node_named_child(definition, i);
      if (is(decorator, "decorator") && names_cuda_or_gpu(source.text(decorator))) return true;
    }
  }
  TSNode inner = call.node;
  for (TSNode n = ts_node_parent(call.node); !ts_node_is_null(n);
       inner = n, n = ts_node_parent(n)) {
    if (is(n, "if_statement") || is(n, "elif_clause")) {
      if (ts_node_eq(field(n, "consequence"), inner) &&
          names_cuda_or_gpu(source.text(field(n, "condition")))) {
        return true;
      }
      continue;
    }
    if (!is(n, "call")) continue;
    const TSNode marks = source.keyword(n, "marks");
    if (!ts_node_is_null(marks) && names_cuda_or_gpu(source.text(marks))) return true;
  }
  return false;
}

void check(const RuleContext& c) {
  if (c.source.mentions("is_available") || c.source.mentions("device_count")) return;
  for (const Call& call : c.source.calls()) {
    if (call.qualified != "torch.device") continue;
    const std::vector<TSNode> args = c.source.positional(call.node);
    if (args.empty() || !is_cuda_string(string_value(c.source, args[0]))) continue;
    // A comparison (`t.device == torch.device("cuda", i)`) chooses nothing, and
    // `torch.device("cuda", torch.cuda.current_device())` (or `index=`) runs
    // where CUDA is.
    const TSNode index = args.size() > 1 ? args[1] : c.source.keyword(call.node, "index");
    if (is(ts_node_parent(call.node), "comparison_operator") ||
        (!ts_node_is_null(index) && c.source.text(index).find("cuda") != std::string_view::npos) ||
        gated_on_cuda(c.source, call)) {
      continue;
    }
    c.sink.report(call.node, "DC115",
                  "CUDA chosen without torch.cuda.is_available() anywhere in this file: it fails "
                  "on machines without a GPU; use torch.device(\"cuda\" if "
                  "torch.cuda.is_available() else \"cpu\")");
  }
}

}  // namespace

extern const Rule kRuleDC115;
const Rule kRuleDC115 = {
    {"DC115", "unguarded-cuda", "CUDA chosen with no torch.cuda.is_available() in the file.",
     false},
    "import torch\n"
    "device = torch.device(\"cuda:0\")\n",
    "import torch\n"
    "device = torch.device(\"cuda:0\" if torch.cuda.is_available() else \"cpu\")\n",
    check};

}  // namespace devcheck::lint::detail
