// DC114 item-every-step: `.item()` directly in the body of a training loop
// (one that calls backward()) in a file that puts something on a device,
// unless the value read decides whether the loop stops (a convergence test,
// a stop on a non-finite loss, an assertion: they need it on every step).
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// The `for`/`while` statement around `node` that starts at byte `start`.
TSNode loop_at(TSNode node, uint32_t start) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (ts_node_start_byte(n) == start && (is(n, "for_statement") || is(n, "while_statement"))) {
      return n;
    }
  }
  return TSNode{};
}

// Whether `node` is the read `call` or holds it, or names `name`.
bool holds_value(const Source& source, TSNode node, TSNode call, std::string_view name) {
  if (ts_node_eq(node, call)) return true;
  if (is(node, "identifier")) return !name.empty() && source.text(node) == name;
  const uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    if (holds_value(source, ts_node_named_child(node, i), call, name)) return true;
  }
  return false;
}

// Whether `node` leaves the loop it is in: a `return`, a `raise`, an exit
// (`sys.exit(1)`), or a `break` not inside an inner loop (`in_inner` says
// whether `node` already is).
bool leaves_loop(const Source& source, TSNode node, bool in_inner = false) {
  if (is(node, "return_statement") || is(node, "raise_statement")) return true;
  if (is(node, "break_statement")) return !in_inner;
  if (is(node, "function_definition") || is(node, "class_definition") || is(node, "lambda")) {
    return false;
  }
  if (is(node, "call")) {
    const std::string_view callee = source.text(field(node, "function"));
    if (callee == "sys.exit" || callee == "exit" || callee == "quit" || callee == "os._exit") {
      return true;
    }
  }
  in_inner = in_inner || is(node, "for_statement") || is(node, "while_statement");
  const uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    if (leaves_loop(source, ts_node_named_child(node, i), in_inner)) return true;
  }
  return false;
}

// Whether the value `call` reads (or the name it is assigned to) steers the
// loop: an `if` in `loop` tests it and leaves (breaks, returns, raises,
// exits), or it is the `while` condition.
bool steers_loop(const Source& source, TSNode loop, TSNode call) {
  if (ts_node_is_null(loop)) return false;
  std::string_view name;
  const TSNode parent = ts_node_parent(call);
  if (is(parent, "assignment") && ts_node_eq(field(parent, "right"), call) &&
      is(field(parent, "left"), "identifier")) {
    name = source.text(field(parent, "left"));
  }
  if (is(loop, "while_statement") && holds_value(source, field(loop, "condition"), call, name)) {
    return true;
  }
  // Each node with whether it lies in an inner loop (whose `break` ends that
  // loop only).
  std::vector<std::pair<TSNode, bool>> todo = {{field(loop, "body"), false}};
  while (!todo.empty()) {
    const auto [node, in_inner] = todo.back();
    todo.pop_back();
    if (ts_node_is_null(node) || is(node, "function_definition") || is(node, "class_definition")) {
      continue;
    }
    if (is(node, "if_statement") && holds_value(source, field(node, "condition"), call, name) &&
        leaves_loop(source, field(node, "consequence"), in_inner)) {
      return true;
    }
    const bool inner = in_inner || is(node, "for_statement") || is(node, "while_statement");
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i) todo.emplace_back(ts_node_named_child(node, i), inner);
  }
  return false;
}

// Whether the read is checked by an assertion (`assert loss.item() < 1`,
// `self.assertEqual(w.grad.item(), expected)`, `torch.testing.assert_close`):
// the check raises when it fails, so, like a stop on a non-finite loss, it
// needs the value on every step (a test that checks each step).
bool asserted(const Source& source, TSNode call) {
  for (TSNode n = ts_node_parent(call); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "assert_statement")) return true;
    if (is(n, "call")) {
      std::string_view callee = source.text(field(n, "function"));
      const std::size_t dot = callee.rfind('.');
      if (dot != std::string_view::npos) callee.remove_prefix(dot + 1);
      if (callee.rfind("assert", 0) == 0) return true;
    }
    if (is(n, "expression_statement") || is(n, "block")) return false;
  }
  return false;
}

// Whether `scope` is test code: a function named `test_*` or `_test*`
// (torch's `test_only_train_fn`, timm's `_test_model`), or a method of a
// class named `Test*`. A test's loop runs a few steps to check values, not
// to train fast: the wait per step costs nothing there.
bool in_test(const Source& source, int scope) {
  const int function = source.function_of(scope);
  if (function < 0) return false;
  const Scope& f = source.scopes()[function];
  if (f.name.rfind("test_", 0) == 0 || f.name.rfind("_test", 0) == 0) return true;
  return f.owner_class >= 0 && source.scopes()[f.owner_class].name.rfind("Test", 0) == 0;
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
    if (steers_loop(source, loop_at(call.node, call.loop), call.node) ||
        asserted(source, call.node) || in_test(source, call.scope)) {
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
