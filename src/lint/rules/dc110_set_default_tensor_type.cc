// DC110 set-default-tensor-type: torch.set_default_tensor_type is deprecated.
// Not the fallback for an older torch: the other way of a version test (or of
// a try) calls set_default_device or set_default_dtype.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether `call` is the fallback for a torch without the replacements: it
// sits in one way of the innermost `if` around it whose tests ask for
// torch's version or for the attribute (`Version(torch.__version__) >= ...`,
// `hasattr(torch, "set_default_device")`), or in an `except` clause, and
// another way of that statement calls torch.set_default_device or
// torch.set_default_dtype. On a torch that has them the deprecated call
// never runs; on an older one there is nothing else to call.
bool fallback_for_older_torch(const Source& source, TSNode call) {
  TSNode statement{};
  TSNode way{};
  for (TSNode n = ts_node_parent(call), child = call; !ts_node_is_null(n);
       child = n, n = ts_node_parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition")) return false;
    if (is(n, "if_statement") || is(n, "try_statement")) {
      statement = n;
      way = child;
      break;
    }
  }
  if (ts_node_is_null(statement)) return false;
  if (is(statement, "if_statement")) {
    bool asks = names_any(source.text(field(statement, "condition")), {"version", "hasattr"});
    for (uint32_t i = 0, n = ts_node_named_child_count(statement); i < n; ++i) {
      const TSNode part = ts_node_named_child(statement, i);
      if (is(part, "elif_clause")) {
        asks = asks || names_any(source.text(field(part, "condition")), {"version", "hasattr"});
      }
    }
    if (!asks) return false;
  } else if (!is(way, "except_clause")) {
    return false;
  }
  for (const Call& other : source.calls()) {
    if ((other.qualified == "torch.set_default_device" ||
         other.qualified == "torch.set_default_dtype") &&
        within(other.node, statement) && !within(other.node, way)) {
      return true;
    }
  }
  return false;
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (call.qualified != "torch.set_default_tensor_type" ||
        fallback_for_older_torch(c.source, call.node)) {
      continue;
    }
    const std::vector<TSNode> args = c.source.positional(call.node);
    std::optional<Fix> fix;
    if (args.size() == 1 && ts_node_named_child_count(field(call.node, "arguments")) == 1) {
      const std::optional<std::string> s = string_value(c.source, args[0]);
      const std::string q = s ? *s : c.source.qualify(args[0]);
      const std::string torch = c.source.dotted(field(field(call.node, "function"), "object"));
      std::string replacement;
      if (q == "torch.cuda.FloatTensor") {
        replacement = torch + ".set_default_device(\"cuda\")";
      } else if (q == "torch.FloatTensor" || q == "torch.DoubleTensor") {
        replacement = torch + ".set_default_dtype(";
        replacement += torch;
        replacement += q == "torch.FloatTensor" ? ".float32)" : ".float64)";
      }
      if (!replacement.empty() && !torch.empty()) {
        fix = Fix{"use " + replacement,
                  {{ts_node_start_byte(call.node), ts_node_end_byte(call.node), replacement}}};
      }
    }
    c.sink.report(call.node, "DC110",
                  "torch.set_default_tensor_type is deprecated; use torch.set_default_device(...) "
                  "for the device and torch.set_default_dtype(...) for the dtype",
                  std::move(fix));
  }
}

}  // namespace

extern const Rule kRuleDC110;
const Rule kRuleDC110 = {
    {"DC110", "set-default-tensor-type", "torch.set_default_tensor_type is deprecated.", true},
    "import torch\n"
    "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n",
    "import torch\n"
    "torch.set_default_device(\"cuda\")\n",
    check};

}  // namespace devcheck::lint::detail
