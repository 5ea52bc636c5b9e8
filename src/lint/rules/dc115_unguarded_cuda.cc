// DC115 unguarded-cuda: torch.device("cuda") in a file that never asks
// torch.cuda.is_available() or device_count().
#include <optional>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether `condition` is false only where a test that names CUDA or a GPU
// is true: `not args.cuda`, or an `or` of which one part is (`args.cpu or
// not args.cuda`): its `else` runs where the program was asked for CUDA.
bool negates_cuda(const Source& source, TSNode condition) {
  // The parts of an `or` chain, in a list rather than on the stack: a chain
  // of thousands nests as deep (its left side).
  std::vector<TSNode> parts{condition};
  while (!parts.empty()) {
    TSNode part = parts.back();
    parts.pop_back();
    while (is(part, "parenthesized_expression")) part = ts_node_named_child(part, 0);
    if (is(part, "not_operator")) {
      if (names_cuda_or_gpu(source.text(field(part, "argument")))) return true;
    } else if (is(part, "boolean_operator") && source.text(field(part, "operator")) == "or") {
      parts.push_back(field(part, "right"));
      parts.push_back(field(part, "left"));
    }
  }
  return false;
}

// Whether code is run only where CUDA is, by what is around it: a decorator
// of an enclosing function or class that names CUDA or a GPU
// (`@RunIf(min_cuda_gpus=1)`, `@unittest.skipIf(not TEST_CUDA, ...)`), or a
// call around it whose `marks=` does (`pytest.param(..., marks=...)`), or an
// `if` (`elif`) whose condition does and whose body holds it
// (`if device.type == "cuda":`, `if TEST_CUDA:`). The test that decides may
// live elsewhere (a conftest.py). A value made in one decorator of a
// definition another decorator gates is made for that definition alone.
bool gated_on_cuda(const Source& source, const Call& call) {
  // In a function whose name says CUDA or a GPU (a module's own `cuda()`,
  // `to_gpu()`): its caller asked for CUDA by calling it.
  const int function = source.function_of(call.scope);
  if (function >= 0 && names_cuda_or_gpu(source.scopes()[function].name)) return true;
  if (in_definition_for_cuda(source, call.scope)) return true;
  TSNode inner = call.node;
  for (TSNode n = ts_node_parent(call.node); !ts_node_is_null(n);
       inner = n, n = ts_node_parent(n)) {
    // In one decorator of a definition another decorator gates
    // (`@needs_cuda` over `@pytest.mark.parametrize("d", (torch.device("cuda"),))`):
    // the value is made for that definition alone.
    if (is(n, "decorator") && decorated_for_cuda(source, ts_node_parent(n), n)) return true;
    // The `else` of `if cpu or not cuda:`, which runs only where the
    // program was asked for CUDA (a flag).
    if (is(n, "else_clause") && ts_node_eq(field(n, "body"), inner) &&
        is(ts_node_parent(n), "if_statement") &&
        negates_cuda(source, field(ts_node_parent(n), "condition"))) {
      return true;
    }
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

// Whether `call` is the default of a keyword-only parameter (after `*` or
// `*args`): an option of an API that its caller sets (`def
// balance_by_time(..., *, device=torch.device("cuda"))`), not a device the
// code itself picks.
bool keyword_only_default(TSNode call) {
  const TSNode parameter = ts_node_parent(call);
  if (!is(parameter, "default_parameter") && !is(parameter, "typed_default_parameter")) {
    return false;
  }
  if (!ts_node_eq(field(parameter, "value"), call)) return false;
  const TSNode parameters = ts_node_parent(parameter);
  if (!is(parameters, "parameters")) return false;
  const uint32_t count = ts_node_named_child_count(parameters);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode p = ts_node_named_child(parameters, i);
    if (ts_node_eq(p, parameter)) return false;
    if (is(p, "keyword_separator") || is(p, "list_splat_pattern")) return true;
  }
  return false;
}

// Whether the function around `call` itself needs CUDA to run: it calls
// `torch.cuda.current_device()`, `torch.cuda.set_device(...)` or
// `torch.cuda.synchronize()` (not under a condition), which fail without a
// GPU before or after the device is made (torch's cuDNN dropout state, a
// benchmark's timing).
bool function_needs_cuda(const Source& source, const Call& call) {
  const int function = source.function_of(call.scope);
  if (function < 0) return false;
  for (const Call& other : source.calls()) {
    if ((other.qualified == "torch.cuda.current_device" ||
         other.qualified == "torch.cuda.set_device" ||
         other.qualified == "torch.cuda.synchronize") &&
        source.function_of(other.scope) == function && !other.conditional) {
      return true;
    }
  }
  return false;
}

// Whether `call` runs when an nn.Module of the file is built (in its
// __init__): a model that cannot be made without a GPU.
bool in_module_init(const Source& source, const Call& call) {
  const int function = source.function_of(call.scope);
  if (function < 0 || source.scopes()[function].name != "__init__") return false;
  const int owner = source.scopes()[function].owner_class;
  if (owner < 0) return false;
  const auto info = source.classes().find(source.scopes()[owner].name);
  return info != source.classes().end() && info->second.is_module;
}

// Whether `path` names a test file (`test_x.py`, `x_test.py`, conftest.py).
bool test_file(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
  };
  return name.rfind("test_", 0) == 0 || ends("_test.py") || name == "conftest.py";
}

// Whether `call` is test code: anything in a test file (pytest and unittest
// collect tests from `test_*.py` files); elsewhere a method of a class
// derived from a `*TestCase` (run by `unittest.main()`), not a script's
// `def test(model, loader)` nor a class `Tester`'s methods.
bool in_test_code(const Source& source, const Call& call, bool file_is_test) {
  if (file_is_test) return true;
  for (int s = call.scope; s > 0; s = source.scopes()[s].parent) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind != ScopeKind::kClass) continue;
    const TSNode bases = field(scope.node, "superclasses");
    if (!ts_node_is_null(bases) && source.text(bases).find("TestCase") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// Whether the file skips some test where CUDA is absent: a decorator that
// names CUDA or a GPU (`@unittest.skipIf(not TEST_CUDA, ...)`,
// `@RunIf(min_cuda_gpus=1)`, `@pytest.mark.gpu`; not one that asks for
// several GPUs, `@needs_multigpu`, which skips single-GPU machines) or a
// `pytest.param(..., marks=...)` that does. Its suite runs without a GPU.
bool gates_a_test_on_cuda(const Source& source) {
  for (const Scope& scope : source.scopes()) {
    if (scope.kind == ScopeKind::kModule) continue;
    const TSNode definition = ts_node_parent(scope.node);
    if (!is(definition, "decorated_definition")) continue;
    for (uint32_t i = 0, n = ts_node_named_child_count(definition); i < n; ++i) {
      const TSNode decorator = ts_node_named_child(definition, i);
      if (!is(decorator, "decorator")) continue;
      const std::string_view text = source.text(decorator);
      if (names_cuda_or_gpu(text) && !names_any(text, {"multi"}) &&
          !names_any(text, {"parametri", "parameteri"})) {
        return true;
      }
    }
  }
  for (const Call& call : source.calls()) {
    const TSNode marks = source.keyword(call.node, "marks");
    if (!ts_node_is_null(marks) && names_cuda_or_gpu(source.text(marks))) return true;
  }
  return false;
}

// Whether a use of a device (the call itself, or a read of the name that
// holds it) leaves no tensor on it: compared (`t.device == dev`), printed or
// logged (`print(dev)`, `logger.info(dev)`), or turned into a string or
// number (`str(dev)`, an f-string, `.type`, `.index`: `th.device("cuda").type`)
// that is itself only so used (not `t.to(str(dev))`).
bool harmless_use(const Source& source, TSNode use) {
  for (;;) {
    const TSNode parent = ts_node_parent(use);
    if (is(parent, "comparison_operator")) return true;
    if (is(parent, "interpolation")) {
      use = ts_node_parent(parent);  // the f-string
      continue;
    }
    if (is(parent, "attribute")) {
      const std::string_view attribute = source.text(field(parent, "attribute"));
      if (!ts_node_eq(field(parent, "object"), use) ||
          (attribute != "type" && attribute != "index")) {
        return false;
      }
      use = parent;
      continue;
    }
    if (!is(parent, "argument_list")) return false;
    const TSNode call = ts_node_parent(parent);
    const TSNode function = field(call, "function");
    const std::string_view name =
        source.text(is(function, "attribute") ? field(function, "attribute") : function);
    if (name == "str" || name == "repr") {
      use = call;
      continue;
    }
    return name == "print" || name == "info" || name == "debug" || name == "warning" ||
           name == "warn";
  }
}

// The reads of the name `value` (a call, or a list holding one) is assigned
// to by `name = value` in a function's body: each other occurrence of that
// name there. Nothing (nullopt) where `value` is not so assigned, in a
// function (a name at module level may be imported elsewhere).
std::optional<std::vector<TSNode>> reads_of_name_assigned(const Source& source, int scope,
                                                          TSNode value) {
  const TSNode parent = ts_node_parent(value);
  const int function = source.function_of(scope);
  if (function < 0 || !is(parent, "assignment") || !ts_node_eq(field(parent, "right"), value) ||
      !is(field(parent, "left"), "identifier")) {
    return std::nullopt;
  }
  const TSNode left = field(parent, "left");
  const std::string_view name = source.text(left);
  std::vector<TSNode> reads;
  std::vector<TSNode> stack{field(source.scopes()[function].node, "body")};
  while (!stack.empty()) {
    const TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "identifier") && source.text(n) == name && !ts_node_eq(n, left)) reads.push_back(n);
    for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
      stack.push_back(ts_node_named_child(n, i));
    }
  }
  return reads;
}

// Whether the device `call` makes never reaches a tensor: each use of it is
// harmless (harmless_use), where it is used directly or held by a name in a
// function that reads it, each read harmless. A name at module level may be
// imported elsewhere: not judged; nor a name never read.
bool reaches_no_tensor(const Source& source, const Call& call) {
  if (harmless_use(source, call.node)) return true;
  const auto reads = reads_of_name_assigned(source, call.scope, call.node);
  if (!reads || reads->empty()) return false;
  for (const TSNode read : *reads) {
    if (!harmless_use(source, read)) return false;
  }
  return true;
}

// Whether `condition` is true for a CUDA device wherever no GPU was asked
// for: `not F`, or an `and` of such a part with parts that test CUDA (`d.type
// == "cuda" and not HAS_GPU`), F naming CUDA or a GPU. Not `d.type !=
// "cuda"` (the CUDA device goes on) nor `small and not use_gpu`.
bool skips_without_gpu(const Source& source, TSNode condition) {
  std::vector<TSNode> parts{condition};
  bool negated = false;
  while (!parts.empty()) {
    TSNode part = parts.back();
    parts.pop_back();
    while (is(part, "parenthesized_expression")) part = ts_node_named_child(part, 0);
    if (is(part, "boolean_operator") && source.text(field(part, "operator")) == "and") {
      parts.push_back(field(part, "right"));
      parts.push_back(field(part, "left"));
      continue;
    }
    if (!names_cuda_or_gpu(source.text(part))) return false;
    if (is(part, "not_operator")) negated = true;
  }
  return negated;
}

// Whether the body of loop `loop` skips CUDA first where no GPU was asked
// for: its first statement is `if C: continue` (skips_without_gpu).
bool loop_skips_cuda(const Source& source, TSNode loop) {
  const TSNode body = field(loop, "body");
  TSNode first{};
  for (uint32_t i = 0, n = ts_node_named_child_count(body); i < n && ts_node_is_null(first); ++i) {
    const TSNode statement = ts_node_named_child(body, i);
    if (!is(statement, "comment")) first = statement;
  }
  if (!is(first, "if_statement") || !ts_node_is_null(field(first, "alternative")) ||
      !skips_without_gpu(source, field(first, "condition"))) {
    return false;
  }
  const TSNode consequence = field(first, "consequence");
  return ts_node_named_child_count(consequence) == 1 &&
         is(ts_node_named_child(consequence, 0), "continue_statement");
}

// Whether `call` is an item of a list or tuple that only loops iterate,
// each skipping CUDA first (loop_skips_cuda): `for d in [cpu,
// torch.device("cuda")]:`, or `devices = [...]` in a function whose every
// read of `devices` is such a loop's iterable. A name at module level may be
// imported elsewhere: not judged.
bool in_list_of_loops_that_skip_cuda(const Source& source, const Call& call) {
  const TSNode list = ts_node_parent(call.node);
  if (!is(list, "list") && !is(list, "tuple")) return false;
  const TSNode parent = ts_node_parent(list);
  if (is(parent, "for_statement") && ts_node_eq(field(parent, "right"), list)) {
    return loop_skips_cuda(source, parent);
  }
  const auto reads = reads_of_name_assigned(source, call.scope, list);
  if (!reads || reads->empty()) return false;
  for (const TSNode read : *reads) {
    const TSNode up = ts_node_parent(read);
    if (!is(up, "for_statement") || !ts_node_eq(field(up, "right"), read) ||
        !loop_skips_cuda(source, up)) {
      return false;
    }
  }
  return true;
}

void check(const RuleContext& c) {
  if (c.source.mentions("is_available") || c.source.mentions("device_count")) return;
  // A test file that asks for no GPU and skips no test without one belongs
  // to a suite run only where a GPU is (pytorch3d's tests, seed 53): its
  // tests choose CUDA by design. Where the file skips some test without
  // CUDA, its suite runs without a GPU, and a test that does not skip fails.
  const bool file_is_test = test_file(c.sink.path());
  const bool suite_needs_gpu = !gates_a_test_on_cuda(c.source);
  for (const Call& call : c.source.calls()) {
    // torch.device("cuda"), or a torch function made on "cuda" (`torch.zeros(n,
    // device="cuda")`): the same choice.
    const bool device = call.qualified == "torch.device";
    if (!device &&
        (call.qualified.rfind("torch.", 0) != 0 || !in_module_init(c.source, call) ||
         !is_cuda_string(string_value(c.source, c.source.keyword(call.node, "device"))))) {
      continue;
    }
    const std::vector<TSNode> args =
        device ? c.source.positional(call.node) : std::vector<TSNode>{};
    if (device && (args.empty() || !is_cuda_string(string_value(c.source, args[0])))) continue;
    // `torch.device("cuda", torch.cuda.current_device())` (or `index=`) runs
    // where CUDA is; a device only compared or printed chooses nothing.
    const TSNode index = call.qualified != "torch.device" ? TSNode{}
                         : args.size() > 1                ? args[1]
                                                          : c.source.keyword(call.node, "index");
    if ((!ts_node_is_null(index) && c.source.text(index).find("cuda") != std::string_view::npos) ||
        gated_on_cuda(c.source, call) || keyword_only_default(call.node) ||
        in_list_of_loops_that_skip_cuda(c.source, call) ||
        (device && reaches_no_tensor(c.source, call)) || function_needs_cuda(c.source, call) ||
        (suite_needs_gpu && in_test_code(c.source, call, file_is_test))) {
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
